export dgx-h100:nodes=4 --to kueue --style kubectl
