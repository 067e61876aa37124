#!/usr/bin/env python3
"""Puts N small objects under BUCKET/PREFIX through SeaweedFS's filer (unsigned HTTP, 16 connections at once):
fill.py FILER_PORT BUCKET PREFIX N."""
import http.client, sys, threading

port, bucket, prefix, total = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])


def worker(first):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for index in range(first, total, 16):
        connection.request("PUT", f"/buckets/{bucket}/{prefix}{index:06d}.txt", body=str(index).encode())
        response = connection.getresponse()
        response.read()
        if response.status >= 300:
            sys.exit(f"filer answered {response.status} for object {index}")


threads = [threading.Thread(target=worker, args=(first,)) for first in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
