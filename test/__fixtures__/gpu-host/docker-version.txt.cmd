$ docker version
rc=0
