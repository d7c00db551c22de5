# SPDX-License-Identifier: Apache-2.0
"""The test image, built here from Debian's busybox-static: nothing is ever
pulled from a registry.

  * rootfs_tar(): a plain tarball of a tiny root file system (`podman import`);
  * oci_archive(): the same tarball as the single layer of an OCI image
    layout, itself packed in a tar (`ctr images import`).  The index carries
    the `io.containerd.image.name` annotation, which is where ctr takes the
    image name from.
"""

import hashlib
import io
import json
import subprocess
import tarfile
import time

BUSYBOX = "/bin/busybox"

# Fixed metadata so the same busybox gives the same layer digest.
_MTIME = 1700000000


def _applets():
    out = subprocess.run([BUSYBOX, "--list"], check=True, capture_output=True, timeout=20).stdout
    return sorted({a for a in out.decode().split() if a and "/" not in a and a != "busybox"})


def _info(name, kind, mode, size=0, target=None):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = mode
    ti.size = size
    ti.mtime = _MTIME
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    if target is not None:
        ti.linkname = target
    return ti


def rootfs_tar(dest):
    """Write the root file system tarball to dest: /bin/busybox with every
    applet as a symlink next to it, /etc/passwd and /etc/group, and the empty
    directories engines mount over."""
    with open(BUSYBOX, "rb") as f:
        busybox = f.read()
    files = {
        "etc/passwd": b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
        "etc/group": b"root:x:0:\ntty:x:5:\nnogroup:x:65534:\n",
        "etc/hosts": b"127.0.0.1 localhost\n",
        "etc/resolv.conf": b"",
    }
    with tarfile.open(dest, "w", format=tarfile.PAX_FORMAT) as t:
        for d in ("bin", "dev", "etc", "proc", "root", "run", "sys", "tmp", "var"):
            t.addfile(_info(d, tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755))
        t.addfile(_info("bin/busybox", tarfile.REGTYPE, 0o755, len(busybox)), io.BytesIO(busybox))
        for a in _applets():
            t.addfile(_info("bin/" + a, tarfile.SYMTYPE, 0o777, target="busybox"))
        for name, data in sorted(files.items()):
            t.addfile(_info(name, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    return dest


def _blob(tar, data):
    digest = hashlib.sha256(data).hexdigest()
    tar.addfile(_info("blobs/sha256/" + digest, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    return "sha256:" + digest, len(data)


def oci_archive(layer_tar, dest, name):
    """Pack layer_tar (an uncompressed rootfs tarball) as an OCI image layout
    tar named `name` (e.g. localhost/bento-engines:test)."""
    with open(layer_tar, "rb") as f:
        layer = f.read()
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else "latest"
    with tarfile.open(dest, "w", format=tarfile.PAX_FORMAT) as t:
        t.addfile(_info("blobs", tarfile.DIRTYPE, 0o755))
        t.addfile(_info("blobs/sha256", tarfile.DIRTYPE, 0o755))
        layer_digest, layer_size = _blob(t, layer)
        config = {
            "architecture": "amd64",
            "os": "linux",
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(_MTIME)),
            "config": {"Env": ["PATH=/bin"], "Cmd": ["/bin/sh"], "WorkingDir": "/"},
            "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
            "history": [{"created_by": "bento tests/integration/engines/image.py"}],
        }
        config_digest, config_size = _blob(t, json.dumps(config, sort_keys=True).encode())
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest,
                       "size": config_size},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer_digest,
                        "size": layer_size}],
        }
        manifest_digest, manifest_size = _blob(t, json.dumps(manifest, sort_keys=True).encode())
        index = {
            "schemaVersion": 2,
            "manifests": [{
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": manifest_digest,
                "size": manifest_size,
                "platform": {"architecture": "amd64", "os": "linux"},
                "annotations": {"io.containerd.image.name": name, "org.opencontainers.image.ref.name": tag},
            }],
        }
        for fname, obj in (("oci-layout", {"imageLayoutVersion": "1.0.0"}), ("index.json", index)):
            data = json.dumps(obj, sort_keys=True).encode()
            t.addfile(_info(fname, tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    return dest
