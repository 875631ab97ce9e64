"""Starts the gateway's Node entry against its SII sandbox on a free 127.0.0.1 port, as `npm start` does.

State lives in memory (`DATABASE_PATH=:memory:`), the tokens are fresh for each run, and the
process is stopped with its whole group.
"""

import os
import secrets
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[3]
NODE = ROOT / "node_modules" / ".bin" / "node"
START_SECONDS = 90


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SandboxGateway:
    def __init__(self) -> None:
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.dev_token = f"sii_dev_{secrets.token_urlsafe(24)}"
        self.admin_token = f"adm_dev_{secrets.token_urlsafe(32)}"
        self._log = tempfile.TemporaryFile()
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not NODE.exists():
            raise RuntimeError(f"{NODE} is missing: run npm install at the repository's root first")
        env = {
            **os.environ,
            "SII_UPSTREAM": "sandbox",
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "DATABASE_PATH": ":memory:",
            "DEV_API_TOKEN": self.dev_token,
            "ADMIN_TOKEN": self.admin_token,
        }
        # `npm start`'s command line, on the project's own Node 22.
        command = [
            str(NODE),
            "--experimental-strip-types",
            "--experimental-async-context-frame",
            "--no-warnings=ExperimentalWarning",
            "src/entry/node.ts",
        ]
        self._process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the gateway exited ({self._process.returncode}):\n{self.log()}")
            try:
                if requests.get(f"{self.base_url}/healthz", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.25)
        log = self.log()
        self.stop()
        raise RuntimeError(f"the gateway did not answer /healthz within {START_SECONDS} s:\n{log}")

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-4000:]

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            self._log.close()
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        self._log.close()
