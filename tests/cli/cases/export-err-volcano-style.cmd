export dgx-h100 --to volcano --style kubectl
