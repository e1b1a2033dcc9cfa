topology show dgx-h100:nodes=2 --format json
