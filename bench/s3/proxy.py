#!/usr/bin/env python3
"""A TCP relay that counts the HTTP requests and connections passing through it:
proxy.py LISTEN_PORT UPSTREAM_PORT COUNT_FILE.

flowrun keeps connections open between requests, so each request's head is read (and its Content-Length body
passed on) to count it; "REQUESTS CONNECTIONS" is written to COUNT_FILE after every request (the benchmark reads
it between runs)."""
import socket, sys, threading

listen_port, upstream_port, count_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
requests = connections = 0


def record(new_requests=0, new_connections=0):
    global requests, connections
    with lock:
        requests += new_requests
        connections += new_connections
        open(count_file, "w").write(f"{requests} {connections}\n")


def pipe(source, target):
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def forward_requests(client, upstream):
    """Passes requests on one by one, counting each: its head up to the empty line, then its body."""
    pending = b""
    try:
        while True:
            while b"\r\n\r\n" not in pending:
                data = client.recv(65536)
                if not data:
                    return
                pending += data
            end = pending.index(b"\r\n\r\n") + 4
            head, pending = pending[:end], pending[end:]
            record(new_requests=1)
            upstream.sendall(head)
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while length > 0:
                if not pending:
                    pending = client.recv(65536)
                    if not pending:
                        return
                part, pending = pending[:length], pending[length:]
                upstream.sendall(part)
                length -= len(part)
    except OSError:
        pass
    finally:
        try:
            upstream.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(client):
    record(new_connections=1)
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    back = threading.Thread(target=pipe, args=(upstream, client))
    back.start()
    forward_requests(client, upstream)
    back.join()
    client.close()
    upstream.close()


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", listen_port))
listener.listen(256)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
