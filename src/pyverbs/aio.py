# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""asyncio integration: await completions, device events and CM events.

Each wait registers the object's file descriptor with the running loop
(loop.add_reader) and sleeps until the kernel says an event is there: no
thread, no polling loop.  The descriptors are switched to non-blocking
mode the first time they are awaited, so a read that finds nothing raises
EAGAIN (handled here) instead of blocking the loop.  In short::

    cq = CQ(ctx, 64, None, CompChannel(ctx), 0)
    wcs = await aio.poll(cq)                 # one or more WCs
    async for wc in aio.completions(cq):     # WCs, forever
        ...
    ev = await aio.get_async_event(ctx)      # an AsyncEvent, acked
    ev = await aio.get_cm_event(channel)     # a CMEvent (ack it yourself)

A CQ given to poll()/completions() must have a CompChannel.  The waits
follow the race-free sequence: poll; if empty, arm (req_notify) and poll
again; if still empty, wait for the channel, take the event and ack it at
once, then start over.  Cancelling a wait (asyncio.wait_for, task.cancel)
removes the reader and leaves every taken event acknowledged, so the CQ
stays usable and closes without waiting.  The CQ may remain armed: the
next event then waits on the channel, and the next poll() takes it.

One wait at a time per descriptor and loop (a second raises
PyverbsUserError): the loop holds one reader per descriptor.  A channel
shared by several CQs serves aio only if events come for the CQ awaited.
"""
from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing
from pyverbs.cmid import CMEvent, CMEventChannel
from pyverbs.cq import CQ, CQEX
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

if TYPE_CHECKING:
    from pyverbs.cq import WC, CompChannel
    from pyverbs.device import AsyncEvent

__all__ = ['poll', 'completions', 'get_async_event', 'get_cm_event']

# (loop, fd) pairs with a reader of ours registered
_waiting: set[tuple[asyncio.AbstractEventLoop, int]] = set()


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


async def _readable(fd: int) -> None:
    """Return once fd is readable; a cancelled wait leaves no reader."""
    loop = asyncio.get_running_loop()
    key = (loop, fd)
    if key in _waiting:
        raise PyverbsUserError(f'File descriptor {fd} is already awaited '
                               'in this event loop')
    fut = loop.create_future()
    _waiting.add(key)
    try:
        loop.add_reader(fd, _wake, fut)
        try:
            await fut
        finally:
            loop.remove_reader(fd)
    finally:
        _waiting.discard(key)


def _nonblocking(fd: int) -> None:
    if os.get_blocking(fd):
        os.set_blocking(fd, False)


def _again(ex: BaseException) -> bool:
    return (isinstance(ex, PyverbsRDMAError) and
            ex.error_code in (errno.EAGAIN, errno.EWOULDBLOCK))


def _check_cq(cq: CQ, num_entries: int) -> CompChannel:
    if not isinstance(cq, CQ) or isinstance(cq, CQEX):
        raise TypeError(f'cq must be a CQ, not {type(cq).__name__}')
    if isinstance(num_entries, bool) or not isinstance(num_entries, int):
        raise TypeError('num_entries must be an int, not '
                        f'{type(num_entries).__name__}')
    if num_entries < 1:
        raise ValueError(f'num_entries must be at least 1, not {num_entries}')
    if cq.closed:
        raise PyverbsUserError('The CQ is closed')
    channel = cq.comp_channel
    if channel is None:
        raise PyverbsUserError('The CQ has no completion channel to await')
    return channel


async def poll(cq: CQ, num_entries: int = 16,
               solicited_only: bool = False) -> list[WC]:
    """Await the next completions of cq (a CQ with a CompChannel) and
    return a non-empty list of at most num_entries WCs, of any status."""
    channel = _check_cq(cq, num_entries)
    armed = False
    while True:
        n, wcs = cq.poll(num_entries)
        if n:
            return wcs[:n]
        if not armed:
            # arm, then poll again: a completion that came before the arm
            # raises no event
            cq.req_notify(solicited_only)
            armed = True
            continue
        fd = channel.fileno()
        _nonblocking(fd)
        await _readable(fd)
        try:
            channel.get_cq_event(cq)
        except PyverbsRDMAError as ex:
            if _again(ex):
                continue        # someone else took it; the CQ is armed
            raise
        cq.ack_events(1)        # at once: a cancel later leaves none
        armed = False


async def completions(cq: CQ, num_entries: int = 16,
                      solicited_only: bool = False) -> AsyncIterator[WC]:
    """An async iterator of the WCs of cq, in order, for ever (break out
    of the loop to stop); each batch comes from one poll()."""
    _check_cq(cq, num_entries)
    while True:
        for wc in await poll(cq, num_entries, solicited_only):
            yield wc


async def get_async_event(ctx: Context) -> AsyncEvent:
    """Await the next asynchronous event of the device (an AsyncEvent,
    already acknowledged).  The Context's async fd becomes non-blocking,
    also for ctx.get_async_event() calls made afterwards."""
    if not isinstance(ctx, Context):
        raise TypeError(f'ctx must be a Context, not {type(ctx).__name__}')
    while True:
        fd = ctx.fileno()
        _nonblocking(fd)
        await _readable(fd)
        try:
            return ctx.get_async_event()
        except PyverbsRDMAError as ex:
            if not _again(ex):
                raise


async def get_cm_event(channel: CMEventChannel) -> CMEvent:
    """Await the next event of a CMEventChannel and return it as a CMEvent
    (ack it with ack_cm_event() or close()).  The channel is made
    non-blocking."""
    if not isinstance(channel, CMEventChannel):
        raise TypeError('channel must be a CMEventChannel, not '
                        f'{type(channel).__name__}')
    while True:
        if not channel.nonblocking:
            channel.nonblocking = True
        await _readable(channel.fileno())
        try:
            return CMEvent(channel)
        except PyverbsRDMAError as ex:
            if not _again(ex):
                raise


if not getattr(_verbs, '_HAVE_RDMACM', 0):
    # a build without librdmacm: get_cm_event() raises PyverbsUserError
    # naming the library (fill_missing)
    del get_cm_event
fill_missing(globals(), __name__)
