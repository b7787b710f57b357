$ docker image inspect local/ngc-style-pytorch:25.01-py3
rc=0
