# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The exceptions pyverbs raises.

PyverbsError
 +-- PyverbsRDMAError   an rdma-core call failed; .error_code is the errno
 +-- PyverbsUserError   the arguments or the object's state are wrong
"""
import os
from typing import Self


class PyverbsError(Exception):
    """Base class of pyverbs errors.

    With an error code other than -1 the message ends with the errno and its
    description, e.g. 'Failed to allocate PD. Errno: 12, Cannot allocate
    memory'.
    """

    def __init__(self, msg: str, error_code: int = -1) -> None:
        self._msg = msg
        self._error_code = error_code
        if error_code != -1:
            msg = f'{msg}. Errno: {error_code}, {os.strerror(error_code)}'
        super().__init__(msg)


class PyverbsRDMAError(PyverbsError):
    """An rdma-core call failed.

    error_code is the errno (positive; -1 when unknown), also available as
    errno; func names the C function that failed, when known.
    """

    func: str | None

    def __init__(self, msg: str, error_code: int = -1,
                 func: str | None = None) -> None:
        super().__init__(msg, error_code)
        self.func = func

    @property
    def error_code(self) -> int:
        return self._error_code

    @property
    def errno(self) -> int:
        return self._error_code

    def __reduce__(self) -> tuple[type[Self], tuple[object, ...]]:
        return (type(self), (self._msg, self._error_code, self.func))


class PyverbsUserError(PyverbsError):
    """Bad input: a wrong argument, or an object in the wrong state."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)

    def __reduce__(self) -> tuple[type[Self], tuple[object, ...]]:
        return (type(self), (self._msg,))
