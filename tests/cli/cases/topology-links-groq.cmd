# The direct chip-to-chip links of one GroqRack: 7 inside each node, 2 per
# node pair between nodes.
topology links groq --accelerators
