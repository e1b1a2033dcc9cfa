cost groq --collective allreduce --size 1M --first 8
