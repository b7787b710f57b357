$ docker info
rc=0
