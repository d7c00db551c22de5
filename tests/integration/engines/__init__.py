# SPDX-License-Identifier: Apache-2.0
"""Helpers for tests/integration/test_engines.py: podman and containerd
driving the runtime under test.

Environment variables (all optional):

  BENTO_ENGINE_RUNTIME=/abs/path   the runtime the engines are given
                                   (default: bento-runtime of BENTO_BUILD);
                                   /usr/sbin/runc or /usr/bin/crun check the
                                   tests themselves
  BENTO_ENGINE_CGROUP_VIEW=host|legacy
                                   `legacy` hides the cgroup2 mount of a
                                   hybrid host from the engines (a tmpfs on
                                   /sys/fs/cgroup holding only the v1
                                   hierarchies, in the suite's private mount
                                   namespace); crun 1.8 refuses hybrid hosts.
                                   Default: legacy for a binary named crun,
                                   host otherwise
  BENTO_ENGINE_TRACE=/abs/file     put a wrapper with the runtime's name in
                                   front of it that appends every argv it
                                   is called with to that file
"""

import os
import stat

import harness

CONTRIB = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "contrib"))
PODMAN_CONF_SNIPPET = os.path.join(CONTRIB, "podman", "containers.conf.d", "bento-runtime.conf")
CONTAINERD_ENTRY = os.path.join(CONTRIB, "containerd", "bento-runtime.toml")
RUNTIMECLASS = os.path.join(CONTRIB, "kubernetes", "runtimeclass.yaml")

IMAGE = "localhost/bento-engines:test"

# What the engines need on PATH (Debian packages in parentheses).
TOOLS = {
    "podman": "podman",
    "conmon": "conmon",
    "containerd": "containerd",
    "ctr": "containerd",
    "containerd-shim-runc-v2": "containerd",
}

ENV_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def runtime_under_test():
    return os.environ.get("BENTO_ENGINE_RUNTIME") or harness.RUNTIME


def cgroup_view(runtime):
    view = os.environ.get("BENTO_ENGINE_CGROUP_VIEW")
    if view:
        assert view in ("host", "legacy"), "BENTO_ENGINE_CGROUP_VIEW must be host or legacy, not %r" % view
        return view
    return "legacy" if os.path.basename(runtime) == "crun" else "host"


def which(name):
    for d in ENV_PATH.split(":"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK) and not os.path.isdir(p):
            return p
    return None


def checked_runtime(private_mount_namespace, tools=None):
    """The runtime under test, once what every engine test needs is there:
    root, the suite's private mount namespace, the tools (default TOOLS:
    {tool: Debian package}) and an executable runtime."""
    tools = TOOLS if tools is None else tools
    assert os.geteuid() == 0, "the engine tests run as root"
    assert private_mount_namespace is True, "the engine tests need the suite's private mount namespace"
    missing = sorted({pkg for tool, pkg in tools.items() if which(tool) is None})
    assert not missing, "missing Debian packages: %s (contrib/install-deps.sh installs them)" % " ".join(missing)
    runtime = runtime_under_test()
    assert os.path.isabs(runtime) and os.access(runtime, os.X_OK), \
        "runtime under test %r is not an executable absolute path (BENTO_BUILD / BENTO_ENGINE_RUNTIME)" % runtime
    return runtime


def trace_file():
    return os.environ.get("BENTO_ENGINE_TRACE") or None


def traced_binary(runtime, wrap_dir):
    """The path the engines are given.  With BENTO_ENGINE_TRACE set, a
    shell wrapper bearing the runtime's own base name (podman picks runtime
    features by that name) logs the argv and execs the runtime, so process
    relations and file descriptors stay as they are."""
    log = trace_file()
    if not log:
        return runtime
    assert os.path.isabs(log), "BENTO_ENGINE_TRACE must be an absolute path"
    os.makedirs(wrap_dir, exist_ok=True)
    path = os.path.join(wrap_dir, os.path.basename(runtime))
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                "printf '%%s ppid=%%s: %%s\\n' \"$(date +%%T.%%N)\" \"$PPID\" \"$*\" >> '%s'\n"
                "exec '%s' \"$@\"\n" % (log, runtime))
    os.chmod(path, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    return path


def trace_tail(lines=25):
    log = trace_file()
    if not log:
        return ""
    try:
        with open(log) as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        return ""
    return "\n--- last runtime calls (%s) ---\n%s" % (log, "\n".join(tail))


def toml_value(v):
    """Enough TOML for the configuration files the tests write."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(v, (list, tuple)):
        return "[%s]" % ", ".join(toml_value(x) for x in v)
    raise TypeError("no TOML for %r" % (v,))


def toml_dump(tables):
    """tables: {"a.b": {key: value}} -> TOML text, one [table] each."""
    out = []
    for name, values in tables.items():
        out.append("[%s]" % name if name else "")
        for k, v in values.items():
            key = k if all(c.isalnum() or c in "-_" for c in k) else toml_value(k)
            out.append("%s = %s" % (key, toml_value(v)))
        out.append("")
    return "\n".join(out)
