echo "=== ours"; PYTHONPATH=src python3 scratch/probe.py 2>&1
echo "=== ref"; PYTHONPATH=/root/.cache/pyverbs-c-vm/reference/usr/lib/python3/dist-packages /usr/bin/python3 scratch/probe.py 2>&1
