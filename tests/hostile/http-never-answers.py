#!/usr/bin/python3
"""http-never-answers: accepts every connection, reads the request and never
answers, holding the connection open. Each of mcpspec's waits must end on its
own deadline."""
import os
import sys
import threading

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402


def handle(conn, method, target, headers, body):
    threading.Event().wait()


http_hostile.serve(handle)
