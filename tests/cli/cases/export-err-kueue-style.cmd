export dgx-h100 --to kueue --style json
