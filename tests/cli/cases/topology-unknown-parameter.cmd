topology show dgx-h100:node=4
