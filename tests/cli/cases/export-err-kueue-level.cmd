export dgx-h100 --to kueue --level su
