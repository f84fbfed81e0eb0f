"""Data-parallel training over ``torch.distributed`` (gloo on CPU), driven by ``torchrun``.

``picohead train`` calls :func:`init_from_env`; under ``torchrun --nproc_per_node=N`` it joins the
process group, otherwise it is a world of one and every helper is a no-op. The trainer runs several
forwards per step (one per tier), which ``DistributedDataParallel``'s one-forward-one-backward
hooks do not fit, so gradients are averaged explicitly after ``backward`` with one flat all-reduce
(every rank trains the same tiers each step: the tier choice is seeded by the step). What it does
not do: shard data (the trainer uses ``DistributedSampler``) or choose a backend other than gloo
on CPU.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import nn


@dataclass(frozen=True)
class World:
    rank: int = 0
    size: int = 1

    @property
    def main(self) -> bool:
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.size > 1


def init_from_env() -> World:
    """Join the process group that ``torchrun`` describes in the environment (if any)."""
    size = int(os.environ.get("WORLD_SIZE", "1"))
    if size <= 1:
        return World()
    if not dist.is_initialized():
        dist.init_process_group(backend="gloo")
    return World(rank=dist.get_rank(), size=dist.get_world_size())


def broadcast_params(model: nn.Module, world: World) -> None:
    """Make every rank start from rank 0's weights."""
    if world.active:
        for t in model.state_dict().values():
            dist.broadcast(t, src=0)


def average_grads(model: nn.Module, world: World) -> None:
    """Average the gradients that exist (the same set on every rank) with one all-reduce."""
    if not world.active:
        return
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= world.size
    offset = 0
    for g in grads:
        n = g.numel()
        g.copy_(flat[offset : offset + n].view_as(g))
        offset += n


def broadcast_flag(value: bool, world: World) -> bool:
    """Rank 0's decision (e.g. early stop), seen by every rank."""
    if not world.active:
        return value
    t = torch.tensor([1 if value else 0])
    dist.broadcast(t, src=0)
    return bool(t.item())


def weights_digest(model: nn.Module) -> str:
    h = hashlib.sha256()
    for k, v in sorted(model.state_dict().items()):
        h.update(k.encode())
        h.update(v.detach().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def gather_digests(model: nn.Module, world: World) -> list[str]:
    """Every rank's weight digest (on every rank): equal digests mean the ranks stayed in sync."""
    mine = weights_digest(model)
    if not world.active:
        return [mine]
    out: list[object] = [None] * world.size
    dist.all_gather_object(out, mine)
    return [str(x) for x in out]


def shutdown(world: World) -> None:
    if world.active and dist.is_initialized():
        dist.destroy_process_group()
