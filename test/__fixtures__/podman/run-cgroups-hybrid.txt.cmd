$ CONTAINERS_CONF=containers.conf podman run --rm --init --network none --label gpu-overhead-action.check=init-probe --label gpu-overhead-action.role=probe --security-opt no-new-privileges --entrypoint python3 sha256:09fcc610e0fd5f787d80757a554a6600c770d9660801464b4489035ffb7322f1 -c ''
rc=126
