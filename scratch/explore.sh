set -x
rdma link
ibv_devinfo -d rxe0 -v | grep -i "srq\|xrc\|tm" 
for d in rxe0 rxe1; do for i in 0 1 2; do cat /sys/class/infiniband/$d/ports/1/gids/$i; cat /sys/class/infiniband/$d/ports/1/gid_attrs/types/$i 2>/dev/null; done; done
ip -4 addr
timeout 20 ibv_srq_pingpong -d rxe0 -g 1 -n 10 > /tmp/s.out 2>&1 &
sleep 1
timeout 20 ibv_srq_pingpong -d rxe1 -g 1 -n 10 192.0.2.1
wait
cat /tmp/s.out
