topology show groq:racks=2
