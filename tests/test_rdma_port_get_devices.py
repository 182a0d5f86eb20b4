# Copyright 2011 Obsidian Research Corp. GPLv2, see COPYING.
#
# python-rdma's tests/get_devices.py (jgunthorpe/python-rdma), ported to
# Python 3 to run over pyverbs-c's rdma package in the Soft-RoCE VM.
# Mechanical changes only:
#  - print statements -> print()
#  - "import pytest" and pytestmark: the test lists the devices (marker
#    device)
import unittest
import pytest
import rdma

pytestmark = pytest.mark.device

class get_devices_test(unittest.TestCase):
    def test_list(self):
        devs = rdma.get_devices()
        print(devs);
        for I in devs:
            print("RDMA Device '%s'"%(I.name));
            for J in ['node_type', 'fw_ver','node_guid','node_desc','sys_image_guid','board_id','hw_ver']:
                print("    %s: %s"%(J,repr(getattr(I,J))))
            for Q in I.end_ports:
                print("    port: %u"%(Q.port_id));
                for J in ['lid','lmc','phys_state','state','sm_lid','sm_sl','gids','pkeys']:
                    print("        %s: %s"%(J,repr(getattr(Q,J))))

if __name__ == '__main__':
    unittest.main()
