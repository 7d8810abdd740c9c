"""What the drills share: a live instance's client and requests released together."""

from __future__ import annotations

import http.client
import json
import random
import socket
import threading
from dataclasses import dataclass


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body) if self.body else None


@dataclass
class Live:
    app: object
    host: str
    port: int

    def call(self, method: str, path: str, body=None, headers: dict | None = None) -> Answer:
        """One request on its own connection (as a phone on a bad network sends them)."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            payload = json.dumps(body).encode() if body is not None else None
            sent = {"Connection": "close", **(headers or {})}
            if payload is not None:
                sent["Content-Type"] = "application/json"
            connection.request(method, path, body=payload, headers=sent)
            response = connection.getresponse()
            return Answer(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()


def at_once(count: int, work) -> list:
    """work(i) for i in range(count), each on its own thread, released together."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index: int) -> None:
        barrier.wait(timeout=30)
        results[index] = work(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


class LossyProxy:
    """A loopback proxy that loses a share of the answers: each request reaches the app in
    full, and for `share` of them (drawn from a seeded generator) the answer is read from
    the app and then thrown away, the client's connection closed: the phone that went
    through a tunnel after the server had done the work. One request per connection
    (`Connection: close`), as Live.call sends them."""

    def __init__(self, target_port: int, share: float, seed: int = 14) -> None:
        self.target_port = target_port
        self.share = share
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.forwarded = 0
        self.dropped = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, name="lossy-proxy", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.listener.close()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._one, args=(client,), daemon=True).start()

    def _one(self, client: socket.socket) -> None:
        with client, socket.create_connection(("127.0.0.1", self.target_port)) as upstream:
            upstream.sendall(_read_request(client))
            answer = b""
            while chunk := upstream.recv(65536):
                answer += chunk
            with self.lock:
                lose = self.random.random() < self.share
                if lose:
                    self.dropped += 1
                else:
                    self.forwarded += 1
            if not lose:
                client.sendall(answer)


def _read_request(client: socket.socket) -> bytes:
    """One HTTP request: its head, then as many body bytes as Content-Length says."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = client.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body
