#!/usr/bin/env python3
"""A TCP relay that counts the HTTP requests passing through it: proxy.py LISTEN_PORT UPSTREAM_PORT COUNT_FILE.

flowrun opens one connection per S3 request, so each connection is one request; the count is written to
COUNT_FILE after every request (the benchmark reads it between runs)."""
import socket, sys, threading

listen_port, upstream_port, count_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()
count = 0


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


def serve(client):
    global count
    with lock:
        count += 1
        open(count_file, "w").write(f"{count}\n")
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    back = threading.Thread(target=pipe, args=(upstream, client))
    back.start()
    pipe(client, upstream)
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
