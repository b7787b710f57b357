$ docker image inspect local/ngc-style-pytorch:23.10-py3
rc=0
