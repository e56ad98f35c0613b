from gbxfs.cli import run

run()
