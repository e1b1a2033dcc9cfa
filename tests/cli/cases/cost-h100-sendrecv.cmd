cost dgx-h100:nodes=2 --collective sendrecv --size 8G --devices 'h100-0000[0-1]/gpu0'
