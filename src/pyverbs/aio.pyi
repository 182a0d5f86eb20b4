from pyverbs._verbs import CMEvent as CMEvent
from pyverbs._verbs import CMEventChannel as CMEventChannel
from pyverbs._verbs import CQ as CQ
from pyverbs._verbs import CQEX as CQEX
from pyverbs._verbs import Context as Context
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs.pyverbs_error import PyverbsUserError as PyverbsUserError
from collections.abc import AsyncIterator
from pyverbs._verbs import AsyncEvent as AsyncEvent, WC as WC

__all__ = ['poll', 'completions', 'get_async_event', 'get_cm_event']

async def poll(cq: CQ, num_entries: int = 16,
               solicited_only: bool = False) -> list[WC]: ...
def completions(cq: CQ, num_entries: int = 16,
                solicited_only: bool = False) -> AsyncIterator[WC]: ...
async def get_async_event(ctx: Context) -> AsyncEvent: ...
async def get_cm_event(channel: CMEventChannel) -> CMEvent: ...
