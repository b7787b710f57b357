#!/opt/torch/.venv/bin/python3
import json, os, sys
args = sys.argv[1:]
verb = next((a for a in args if a in ('create', 'run')), None)
if verb:
    rest = args[args.index(verb) + 1:]
    bundle = os.getcwd()
    for i, a in enumerate(rest):
        if a in ('--bundle', '-b') and i + 1 < len(rest):
            bundle = rest[i + 1]
        elif a.startswith('--bundle='):
            bundle = a.split('=', 1)[1]
    path = os.path.join(bundle, 'config.json')
    with open(path) as f:
        spec = json.load(f)
    if spec.get('process', {}).pop('rlimits', None) is not None:
        with open(path, 'w') as f:
            json.dump(spec, f)
os.execv('/opt/gpu-host/docker/bin/runc', ['runc'] + args)
