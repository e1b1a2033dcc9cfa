topology links groq --type groq-c2d
