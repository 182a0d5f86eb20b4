# Copyright 2011 Obsidian Research Corp. GPLv2, see COPYING.
#
# python-rdma's tests/get_verbs.py (jgunthorpe/python-rdma), ported to
# Python 3 to run over pyverbs-c's rdma package in the Soft-RoCE VM.
# Mechanical changes only:
#  - print statements -> print()
#  - "import pytest" and pytestmark: the test opens devices (marker device)
import unittest
import pytest
import rdma

pytestmark = pytest.mark.device

class get_verbs_test(unittest.TestCase):
    def test_get(self):
        for I in rdma.get_devices():
            with rdma.get_verbs(I) as X:
                print(X);
            for Q in I.end_ports:
                with rdma.get_verbs(Q) as X:
                    print(X);

if __name__ == '__main__':
    unittest.main()
