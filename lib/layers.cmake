# The module layering (ARCHITECTURE.md, "Layers"), written once: lib/CMakeLists.txt
# makes one static library per entry, linking the modules it names, and
# cmake/check_layering.cmake (run by the build, and by tests/scripts/layering.sh)
# refuses an include that climbs it. A module is lib/src/MOD and
# lib/include/topoplan/MOD; a module is declared after the ones it uses.
#   module      uses (directly; what those use comes along)
set(topoplan_layers
  "support"
  "model:support"
  "io:model"
  "render:model"
  "cost:io"
  "placement:cost"
  "manifests:placement"
  "formats:placement"
  "whatif:placement"
  "simulate:placement")
