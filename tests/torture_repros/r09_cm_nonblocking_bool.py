# channel.nonblocking = v: v.__bool__ closes the channel after the setter
# checked it open; fcntl() then runs on the freed channel's fd
import fcntl, os
from pyverbs.cmid import CMEventChannel
ch = CMEventChannel()
fd = ch.fd
class B(int):
    def __bool__(self):
        ch.close()
        global other
        other = os.open('/dev/null', os.O_RDONLY)   # reuses the fd number
        return True
ch.nonblocking = B(1)
print('fd', fd, 'reused by', other, 'O_NONBLOCK now',
      bool(fcntl.fcntl(other, fcntl.F_GETFL) & os.O_NONBLOCK))
