# One GroqNode's worth of a small topology as JSON, filtered by type.
topology links dgx-h100 --type pcie5x16 --format json
