# A value outside an option's choices.
render dgx-h100 --format pdf
