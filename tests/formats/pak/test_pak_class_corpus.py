"""Real corpus files of every class the pak feed table knows (gbxfs/data/classdb_feeds.tsv)
go through the project's pak writer and reader and come out byte-exact, with their
feeds reproduced: the ivXor folds land where pak_testkit's models put them for the
feeds found by walking the plain file (corpus_feeds.py), and the ciphertext is the
reference Nadeo CBC with those folds.

Which files (corpus_feeds.choose): per feed class the corpus holds, the smallest file of
that main class, else the smallest file holding a node of it; per game generation up to
TM Forever the smallest map and replay. Each goes in as is (stored) and in its in-pak
form (body uncompressed, as the game's paks keep GBX files), stored and compressed.
Left out: the damaged Road block info (test_pak_world_corpus.py) and files holding a
class with no feed id (a stored entry of those cannot be decrypted past its node: the
writer refuses it, checked below).

Feed classes no corpus file holds (no pak test possible; abstract classes such as
CGameCtnBlockInfo are held only through their subclasses):

    CConstructionChallengeVsk, CControlBase, CControlContainer,
    CControlEffect, CControlEffectMaster, CControlIconIndex, CControlLayout, CControlList,
    CControlStyle, CCtnMediaBlockUiTMSimpleEvtsDisplay, CFunc, CFuncColorGradient, CFuncEnum,
    CFuncEnvelope, CFuncKeys, CFuncKeysNatural, CFuncKeysSkel, CFuncLight, CFuncLightColor, CFuncPlug,
    CFuncShader, CFuncShaderLayerUV, CFuncShaders, CFuncSkel, CFuncTree, CFuncTreeRotate,
    CFuncTreeSubVisualSequence, CFuncTreeTranslate, CGameAdvertising, CGameArenaPlayer, CGameArmorModel,
    CGameBuddy, CGameCampaignScores, CGameCampaignsScoresManager,
    CGameCaptureZoneModel, CGameChallengeScores, CGameCommonItemEntityModel, CGameControlCamera,
    CGameControlCameraOrbital3d, CGameControlCameraTarget, CGameControlCameraTrackManiaRace,
    CGameControlCameraTrackManiaRace2, CGameControlCameraTrackManiaRace3, CGameControlCardNetOnlineNews,
    CGameCtnBlockInfo, CGameCtnBlockInfoClip, CGameCtnBlockInfoClipHorizontal,
    CGameCtnBlockInfoClipVertical, CGameCtnBlockInfoFlat, CGameCtnBlockInfoFrontier,
    CGameCtnBlockInfoMobil, CGameCtnBlockInfoMobilLink, CGameCtnBlockInfoPylon,
    CGameCtnBlockInfoRectAsym, CGameCtnBlockInfoSlope, CGameCtnBlockInfoTransition,
    CGameCtnBlockInfoVariant, CGameCtnBlockInfoVariantAir, CGameCtnBlockInfoVariantGround,
    CGameCtnCollector, CGameCtnDecorationAudio,
    CGameCtnDecorationMaterialModifiers, CGameCtnDecorationMood, CGameCtnDecorationSize,
    CGameCtnDecorationTerrainModifier, CGameCtnMediaBlock, CGameCtnMediaBlockBulletFx_Deprecated,
    CGameCtnMediaBlockCamera, CGameCtnMediaBlockCameraEffect, CGameCtnMediaBlockCameraSimple,
    CGameCtnMediaBlockCharVis_Deprecated, CGameCtnMediaBlockCheatEmptyCars, CGameCtnMediaBlockDecal2d,
    CGameCtnMediaBlockFx, CGameCtnMediaBlockFxBlur, CGameCtnMediaBlockObject,
    CGameCtnMediaBlockOpponentVisibility, CGameCtnMediaBlockScenery, CGameCtnMediaBlockSkel,
    CGameCtnMediaBlockTransition, CGameCtnMediaBlockTriangles, CGameCtnMediaBlockTurret,
    CGameCtnMediaBlockUi, CGameCtnMediaVideoParams, CGameCtnSolidDecals, CGameCtnZone,
    CGameCtnZoneFusionInfo, CGameCtnZoneTransition, CGameGateModel, CGameGeneralScores, CGameGhost,
    CGameLeagueManager, CGameMgrMap, CGameNetOnlineMessage, CGameNod,
    CGameObjectModel, CGameObjectPhyCompoundModel, CGameObjectVis,
    CGamePlayerProfileChunk, CGamePlayerProfileChunk_AccountSettings,
    CGamePlayerProfileChunk_ChallengesScores, CGamePlayerProfileChunk_ChallengesStats,
    CGamePlayerProfileChunk_EditorSettings, CGamePlayerProfileChunk_GameScores,
    CGamePlayerProfileChunk_GameSettings, CGamePlayerProfileChunk_GameStats,
    CGamePlayerProfileChunk_GlobalInterfaceSettings, CGamePlayerProfileChunk_InputBindingsConfig,
    CGamePlayerProfileChunk_InterfaceSettings, CGamePlayerProfileChunk_ManiaPlanetStations,
    CGamePlayerProfileChunk_PackagesInfos, CGamePlayerProfileChunk_ScriptPersistentTraits,
    CGamePlayerProfileChunk_TrackManiaSettings, CGamePlayerProfileChunk_VehiclesSettings,
    CGamePodiumInfo, CGameReplayObjectVisData, CGameSkillScoreComputer, CGameSlotVis,
    CGameTeleporterModel, CGameTurbineModel, CGameUserFileList, CGameUserProfile, CGameVehicleModel,
    CHmsAmbientOcc, CHmsFogPlane, CHmsLight, CHmsPackLightMap, CHmsPackLightMapCache,
    CHmsPackLightMapMood, CHmsPoc, CHmsPocEmitter, CHmsPrecalcRender, CHmsSoundSource, CHmsZone,
    CHmsZoneElem, CInputReplay, CMotion, CMotionCmdBase, CMotionDayTime,
    CMotionEmitterLeaves, CMotionManaged, CMotionManager, CMotionManagerLeaves, CMotionPlayer, CMotions,
    CMotionShader, CMotionSkel, CMotionSkelSimple, CMotionTrack, CMotionTrackMobilPitchin,
    CMotionWeather, CMwCmd, CMwCmdAffectIdent, CMwCmdAffectIdentClass, CMwCmdBlock, CMwCmdBlockMain,
    CMwCmdContainer, CMwCmdExp, CMwCmdExpClass, CMwCmdExpClassParam, CMwCmdInst, CMwCmdScript,
    CPlug, CPlugAnimChannelGroup, CPlugAnimClip, CPlugAnimClipEdition,
    CPlugAnimClipEditionPose, CPlugAnimFile, CPlugAnimGraph, CPlugAnimGraphStack, CPlugAnimPoseGrid,
    CPlugAnimPoseGroup, CPlugAnimSpotModel, CPlugAnimVariantGroup, CPlugAudio, CPlugAudioBalance,
    CPlugAudioEnvironment, CPlugBeamEmitterSubModel, CPlugBitmap, CPlugBitmapAddress, CPlugBitmapApply,
    CPlugBitmapArray, CPlugBitmapAtlas, CPlugBitmapRender, CPlugBitmapRenderCubeMap,
    CPlugBitmapRenderHemisphere, CPlugBitmapRenderLightFromMap, CPlugBitmapRenderLightOcc,
    CPlugBitmapRenderOld, CPlugBitmapRenderSub, CPlugBitmapSampler, CPlugBulletModel,
    CPlugCamControlModel, CPlugCharPhySpecialProperty, CPlugClouds,
    CPlugCloudsParam, CPlugCloudsSolids, CPlugCurveSimpleNod, CPlugCustomBeamModel,
    CPlugCustomBulletModel, CPlugDataTape, CPlugDayTime, CPlugDecalModel, CPlugDecoratorSolid,
    CPlugDecoratorTree, CPlugDynaObjectModel, CPlugDynaPointModel,
    CPlugEditorHelper, CPlugEntitySpawner, CPlugFile, CPlugFileFidContainer, CPlugFileGen, CPlugFileGPU,
    CPlugFileGPUP, CPlugFileGPUV, CPlugFileImg, CPlugFilePsh, CPlugFileText,
    CPlugFileTextScript, CPlugFileVHlsl, CPlugFileZip, CPlugFlockModel, CPlugFogMatter, CPlugFogVolume,
    CPlugFogVolumeBox, CPlugFont, CPlugFxHdrScales_Tech3, CPlugFxLightning, CPlugFxWindOnDecal,
    CPlugFxWindOnTreeSprite, CPlugGameSkin, CPlugGameSkinAndFolder, CPlugImageArray,
    CPlugLightUserModel, CPlugLocatedSound, CPlugMaterial, CPlugMaterialColorTargetTable,
    CPlugMaterialCustom, CPlugMaterialFx, CPlugMaterialFxGenUvProj, CPlugMaterialWaterArray,
    CPlugMediaClipList, CPlugMoodBlender, CPlugMoodSetting, CPlugParticleEmitterModel,
    CPlugParticleEmitterSubModel, CPlugParticleGpuModel, CPlugParticleGpuSpawn,
    CPlugParticleMaterialImpactModel, CPlugParticleSplashModel, CPlugPath, CPlugPlacementPatch,
    CPlugPointsInSphereOpt, CPlugPolyLine3, CPlugProbe, CPlugRoadChunk, CPlugShader, CPlugShaderApply,
    CPlugShaderGeneric, CPlugShaderPass, CPlugShieldModel, CPlugSolid2, CPlugSound, CPlugSoundMulti,
    CPlugSoundSurface, CPlugSpawnModel, CPlugSpline3D, CPlugSpriteParam, CPlugTreeGenerator,
    CPlugTriggerAction, CPlugTriggerAnim, CPlugTurret, CPlugVehicleCameraRace2Model,
    CPlugVehicleCameraRace3Model, CPlugVehicleMaterialGroup, CPlugVehiclePhyModel,
    CPlugVehiclePhyModelCustom, CPlugVehiclePhyTuning, CPlugVehicleVisEmitterModel, CPlugVehicleVisModel,
    CPlugVehicleVisModelShared, CPlugVehicleWheelPhyModel, CPlugVFXFile, CPlugVisEntFxModel,
    CPlugVisual, CPlugVisual2D, CPlugVisual3D, CPlugVisualGrid, CPlugVisualIndexed,
    CPlugVisualIndexedLines, CPlugVisualQuads, CPlugVisualQuads2D, CPlugVisualSprite, CPlugWeather,
    CScene, CScene2d, CScene3d, CSceneCharVis, CSceneConfig, CSceneController, CSceneFx, CSceneFxNod,
    CSceneGate, CSceneLight, CSceneLocation, CSceneMessageHandler, CSceneMgrFlock, CSceneMobilLeaves,
    CSceneObject, CSceneObjectLink, CScenePath, CScenePoc, CSceneSector, CSceneSoundSource, CSceneToy,
    CSceneToyCharacter, CSceneToyVehicleTrackMania, CSceneTrafficGraph, CSceneTrafficPath,
    CSceneVehicle, CSceneVehicleCar, CSceneVehicleVis,
    CScriptTraitsMetadata, CScriptTraitsPersistent, CVskCollection, GxFog,
    GxFogBlender, GxLight, GxLightAmbient, GxLightBall, GxLightDirectional, GxLightNotAmbient,
    GxLightPoint, GxLightSpot, NPlugAnim_SAvatarAnimV0_Model_WeightInfluence, NPlugAnim_SIKChainPose,
    NPlugDyna_SKinematicConstraint, NPlugDyna_SPrefabConstraintParams,
    NPlugDynaObjectModel_SInstanceParams, NPlugItem_SVariantList,
    NPlugItemPlacement_SPlacement, NPlugItemPlacement_SPlacementGroup,
    NPlugItemPlacement_SPlacementOption, NPlugStaticObjectModel_SInstanceParams, NPlugTrigger_SSpecial,
    NPlugTrigger_SWaypoint, NSceneDynaVis_SMgr
"""
from __future__ import annotations

import re
import zlib

import pytest
from corpus_feeds import choose, corpus_gbx, feed_classes, feeds_of
from pak_testkit import model_folds_compressed, model_folds_stored, reference_encrypt

from gbxfs.formats.gbx import classdb, generation
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.cipher import align8
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.writer import PakFile, build_pak

pytestmark = pytest.mark.corpus

KS = b"0F1E2D3C4B5A69788796A5B4C3D2E1F0"
KEY = derive_key(KS)
DAMAGED = "IslandSeaWaySupport.TMEDRoad.Gbx"     # see test_other_corpus.py
MAP, REPLAY = 0x03043000, 0x03093000
PAK_ERA = (*generation.OLD_GENERATIONS, "unknown")      # "unknown": the old world files


def documented_without_corpus() -> set[str]:
    text = __doc__.split("subclasses):", 1)[1]
    return set(re.findall(r"[\w]+", text))


@pytest.fixture(scope="module")
def files(corpus):
    return corpus_gbx()


def feedable(f) -> bool:
    return all(classdb.feed_id(c) is not None for c in f.node_classes)


def usable(f) -> bool:
    return f.status == "complete" and feedable(f) and not f.path.endswith(DAMAGED)


def _pak(entries: list[tuple[str, bytes]], compress: bool) -> tuple[bytes, PakArchive]:
    data = build_pak([PakFile(f"Game/{i}/{name}", d, compress=compress) for i, (name, d) in enumerate(entries)], KS)
    return data, PakArchive(lambda o, n: data[o:o + n], len(data), KEY)


def test_the_list_of_feed_classes_without_corpus_file_is_right(files):
    held = set().union(*(f.node_classes for f in files))
    missing = {name for cls, name in feed_classes().items() if cls not in held}
    assert documented_without_corpus() == missing


def test_every_feed_class_of_the_corpus_round_trips_through_a_pak(files):
    good = [f for f in files if usable(f)]
    chosen = choose(good)
    feed = set(feed_classes())
    # every feed class a usable file holds, and every main class, goes through a pak
    assert set().union(*(f.node_classes for f in chosen)) & feed == set().union(*(f.node_classes for f in good)) & feed
    assert {f.main_class for f in chosen} == {f.main_class for f in good}
    old = {(f.main_class, f.generation) for f in chosen if f.main_class in (MAP, REPLAY)}
    assert {(MAP, "TM 1.0"), (MAP, "TM Forever"), (REPLAY, "TM 1.0"), (REPLAY, "TM Forever")} <= old

    # as is, stored (LZO bodies: every feed comes after the last page)
    plain = [(f.path.rsplit("/", 1)[-1], f.data) for f in chosen]
    _, arc = _pak(plain, compress=False)
    for rec, (name, original) in zip(arc.files, plain):
        e = arc.entry(rec)
        assert e.kind == "gbx" and e.check() is None, (name, e.error)
        assert e.read(0, e.size) == original, name

    # in-pak form, stored and compressed: the feeds fall inside the entry
    forms = [(f.path.rsplit("/", 1)[-1], f.in_pak) for f in chosen]
    walks = [feeds_of(d) for _, d in forms]
    for (name, _), w in zip(forms, walks):
        assert w.status == "complete" and not w.no_feed_id, name
    assert sum(w.node_feeds for w in walks) > 5 * len(walks)
    for compress in (False, True):
        data, arc = _pak(forms, compress)
        for rec, (name, original), w, f in zip(arc.files, forms, walks, chosen):
            e = arc.entry(rec)
            assert e.kind == "gbx" and e.check() is None, (name, e.error)
            assert e.read(0, e.size) == original, name
            assert e.gbx.parse_status == "complete", name
            assert (e.gbx.node_feeds, e.gbx.chunk_feeds) == (w.node_feeds, len(w.feeds) - w.node_feeds), name
            stored = zlib.compress(original, 9) if compress else original
            folds = model_folds_compressed(stored, w.feeds)[0] if compress else model_folds_stored(len(original), w.feeds)
            assert dict(e.gbx.folds) == folds, name
            if f.generation in PAK_ERA:      # the reference cipher runs per block: pak-era files only
                start = arc.header.data_offset + rec.offset
                iv = data[start:start + 8]
                assert data[start + 8:start + 8 + align8(len(stored))] == reference_encrypt(KEY, iv, stored, folds), name


def test_feed_classes_held_only_by_files_that_cannot_round_trip(files):
    """Every feed class a corpus file holds is also held by a file that goes through a
    pak, except the Road block info, whose only file is the damaged one."""
    feed = set(feed_classes())
    held = set().union(*(f.node_classes for f in files)) & feed
    through = set().union(*(f.node_classes for f in files if usable(f))) & feed
    assert {feed_classes()[c] for c in held - through} == {"CGameCtnBlockInfoRoad"}


def test_a_class_without_feed_id_is_refused_stored(files):
    """The feed table has no row for some classes the corpus holds (fonts, playground
    modules, character models): a stored entry cannot be decrypted past such a node, so
    the writer refuses it, naming the class."""
    unknown = sorted({c for f in files for c in f.node_classes if classdb.feed_id(c) is None})
    assert unknown
    for cls in unknown:
        f = min((f for f in files if cls in f.node_classes), key=lambda f: len(f.in_pak))
        with pytest.raises(ValueError, match=f"no feed id known for class .*{cls:08X}"):
            build_pak([PakFile("Game/x/" + f.path.rsplit("/", 1)[-1], f.in_pak, compress=False)], KS)
