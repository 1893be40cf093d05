#!/usr/bin/env python3
"""A loopback stand-in for AirKorea's paged realtime endpoint, for the live-path lane of scripts/bench.

usage: serve_pages.py ARCHIVE_DIR PORT_FILE [REQUEST_LOG]

Serves the .xml/.json pages of ARCHIVE_DIR (in name order, as gen_airkorea.py numbers them) on
127.0.0.1 at a free port, which it writes to PORT_FILE once it listens: any GET with `pageNo=N`
answers with the N-th page's bytes, unchanged; a page number past the last answers with an empty
page (no items), as the API does. The query's other parameters (the key, numOfRows …) are ignored.
Runs until killed (SIGTERM). Logs nothing, unless REQUEST_LOG is given: then each request's path
(without its query, so no key) is appended to that file, one line per request answered.
"""
import http.server
import os
import sys
import urllib.parse


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    directory, port_file = argv[1], argv[2]
    request_log = open(argv[3], "a", buffering=1) if len(argv) == 4 else None
    pages = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith((".xml", ".json")))
    if not pages:
        print(f"error: no .xml or .json pages in {directory}", file=sys.stderr)
        return 2
    is_json = pages[0].endswith(".json")

    def empty(page):
        if is_json:
            return ('{"response":{"body":{"totalCount":0,"items":[],"pageNo":%d,"numOfRows":1000},'
                    '"header":{"resultMsg":"NORMAL_CODE","resultCode":"00"}}}' % page).encode()
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<response><header><resultCode>00</resultCode>'
                '<resultMsg>NORMAL_CODE</resultMsg></header><body><items></items><numOfRows>1000</numOfRows>'
                f'<pageNo>{page}</pageNo><totalCount>0</totalCount></body></response>\n').encode()

    class Pages(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            try:
                page = int(query.get("pageNo", ["1"])[0])
            except ValueError:
                page = 1
            if 1 <= page <= len(pages):
                with open(pages[page - 1], "rb") as fh:
                    body = fh.read()
            else:
                body = empty(page)
            self.send_response(200)
            self.send_header("Content-Type", "application/json;charset=UTF-8" if is_json else "text/xml;charset=UTF-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            if request_log:
                request_log.write(urllib.parse.urlsplit(self.path).path + "\n")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    with open(port_file + ".tmp", "w") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
