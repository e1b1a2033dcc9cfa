#!/usr/bin/env bash
# topoplan(1)'s SYNOPSIS lists, for every command, exactly the options its
# --help lists (long and short names), and says which --format values each
# takes; README says the same about --format.
set -u
bin=$(realpath "$1")
root=$2
export BIN=$bin MAN=$root/man/topoplan.1
exec python3 - <<'PY'
import os, re, subprocess, sys
BIN, MAN = os.environ["BIN"], os.environ["MAN"]
text = open(MAN, encoding="utf-8").read()
synopsis = text[text.index(".SH SYNOPSIS"):text.index(".SH DESCRIPTION")]
entries = {}
for chunk in synopsis.split(".br"):
    m = re.search(r"^\.B topoplan ((?:topology )?[a-z][a-z\\-]*)", chunk, re.M)
    if not m:
        continue
    body = chunk.split(".PP")[0].replace("\\-", "-")
    options = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", body))
    formats = re.search(r"--format\n\.BR ([a-z| ]+)", body)
    entries[m.group(1).replace("\\-", "-")] = (options, formats.group(1).replace(" ", "").split("|") if formats else [])
failures = []
commands = ["topology list", "topology show", "topology links", "topology validate", "render", "cost", "plan", "evaluate",
            "compare", "check", "import", "export", "export-plan"]
for command in commands:
    help_text = subprocess.run([BIN, *command.split(), "--help"], capture_output=True, text=True).stdout
    options = set()
    formats = []
    # Options are the two-space-indented lines of the "Options:" section (the
    # prose after it may mention options on indented lines of its own).
    section = help_text.split("\nOptions:\n", 1)[-1].split("\n\n", 1)[0]
    for line in section.splitlines():
        m = re.match(r"^  ((?:-[a-z],)?--[a-z-]+)(?:\s+(\S+))?", line)
        if not m:
            continue
        for name in m.group(1).split(","):
            options.add(name)
        if m.group(1).endswith("--format") and m.group(2):
            formats = m.group(2).split("|")
    options -= {"-h", "--help"}
    if command not in entries:
        failures.append(f"SYNOPSIS has no line for '{command}'")
        continue
    man_options, man_formats = entries[command]
    man_options -= {"-h", "--help"}
    for o in sorted(options - man_options):
        failures.append(f"{command}: --help has {o}, the SYNOPSIS does not")
    for o in sorted(man_options - options):
        failures.append(f"{command}: the SYNOPSIS has {o}, --help does not")
    if formats != man_formats:
        failures.append(f"{command}: --help takes --format {'|'.join(formats)}, the SYNOPSIS says {'|'.join(man_formats)}")
for f in failures:
    print("FAIL", f)
print(f"{len(commands)} commands checked")
sys.exit(1 if failures else 0)
PY
