export PYTHONPATH=src
timeout 60 python3 examples/srq_pingpong.py -d rxe0 -g 1 -q 4 -n 20 -p 18999 > /tmp/s.out 2>&1 &
sleep 15
timeout 60 ibv_srq_pingpong -d rxe1 -g 1 -q 4 -n 20 -p 18999 192.0.2.1; echo "client rc=$?"
wait; echo "--- server (ours)"; cat /tmp/s.out
