# An all-to-all over 128 DGX H100s: each channel runs its batches of eight peers one after another.
cost dgx-h100:nodes=128 --collective alltoall --size 64MiB
