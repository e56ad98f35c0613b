// Runs the Khronos glTF Validator (npm package gltf-validator) on .glb files.
// usage: node validate_gltf.js MODULE_DIR FILE...  -> one JSON object on stdout:
// {file: {errors, warnings, messages: [first error messages]}}
const fs = require("fs");
const validator = require(process.argv[2]);

(async () => {
  const out = {};
  for (const file of process.argv.slice(3)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {maxIssues: 100});
    out[file] = {
      errors: report.issues.numErrors,
      warnings: report.issues.numWarnings,
      messages: report.issues.messages.filter((m) => m.severity === 0).slice(0, 5)
        .map((m) => `${m.code} ${m.pointer || ""} ${m.message}`),
    };
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(2); });
