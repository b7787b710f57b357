# Makes workloads/ a package so `python3 -m unittest discover -s workloads/tests -t .` can import
# workloads.tests.*; the workload scripts themselves run as plain files (python3 matmul.py ...).
