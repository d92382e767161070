"""The sandbox under its old name, for older imports: it re-exports the public names of the four
modules it was split into (issue 33), bottom up:

* ``autograder.run.rootfs``: the allow-list root of ``namespace`` isolation (the namespaces, the
  set-up script, what of the host it shows, the student's identity and environment in it),
* ``autograder.run.isolation``: choosing the isolation, probing it, refusing where it cannot be set
  up (``SandboxUnavailable``); the isolations themselves are described there,
* ``autograder.run.templates``: the warm templates (the grader's side) and this process's registry,
* ``autograder.run.channel``: ``Worker``, the student's process and its channel.

The engine imports those modules directly. A test that stands in for a function patches the
module that defines it (``rootfs._unshare_cmd``, ``isolation.probe``...): patching a name here
changes nothing that the engine calls.
"""

from __future__ import annotations

from autograder.run.channel import LIMITS, MAX_SKIPPED, ChannelError, Worker, WorkerDied, WorkerTimeout
from autograder.run.isolation import (
    ISOLATIONS,
    PROCESS_WARNING,
    SandboxUnavailable,
    namespaces_available,
    probe,
    probe_account,
    refuse_message,
    resolve_isolation,
)
from autograder.run.rootfs import (
    BINDER,
    BUILD_AT,
    DEVICES,
    ENGINE,
    HOME,
    SCRATCH_MB,
    UID_BASE,
    WORKER_ENV,
    WORKER_MODULES,
    grader_of,
    lease_uid,
    release_uid,
)
from autograder.run.templates import (
    _FREE,
    _HELD,
    PRELOADABLE,
    Template,
    TemplateFailed,
    held_template,
    preload_names,
    select_readable,
    start_templates,
    stop_templates,
    template_for,
    template_lease,
    warm_enabled,
)

__all__ = [
    "BINDER", "BUILD_AT", "DEVICES", "ENGINE", "HOME", "ISOLATIONS", "LIMITS", "MAX_SKIPPED", "PRELOADABLE",
    "PROCESS_WARNING", "SCRATCH_MB", "UID_BASE", "WORKER_ENV", "WORKER_MODULES", "_FREE", "_HELD", "ChannelError",
    "SandboxUnavailable", "Template", "TemplateFailed", "Worker", "WorkerDied", "WorkerTimeout", "held_template",
    "namespaces_available", "preload_names", "probe", "probe_account", "refuse_message", "resolve_isolation",
    "grader_of", "lease_uid", "release_uid", "select_readable", "start_templates", "stop_templates", "template_for",
    "template_lease",
    "warm_enabled",
]
