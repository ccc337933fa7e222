#!/usr/bin/python3
"""What a page holds after the browser loaded it, as JSON on stdout.

Reads the DOM chromium --dump-dom printed (a file) with Python's own
html.parser, independent of the code that wrote the page:
  sections: every <section>, in order: id, class, data-status, the text of
            its .verdict and .name elements
  images:   every <img src>
  tags:     how many elements of each tag name
  svgs:     how many <svg> elements
"""
import json
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Shape(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []
        self.images = []
        self.tags = {}
        self.stack = []          # open elements: (tag, capture key or None)
        self.capture = None      # (section index, key) while inside .verdict / .name

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "img":
            self.images.append(a.get("src"))
        if tag == "section":
            self.sections.append({"id": a.get("id"), "class": a.get("class"), "status": a.get("data-status"),
                                  "name_attribute": a.get("data-name"), "verdict": "", "name": ""})
        key = None
        classes = (a.get("class") or "").split()
        if self.sections and self.capture is None and "verdict" in classes and tag == "span" and not self.sections[-1]["verdict"]:
            key = "verdict"
        if self.sections and self.capture is None and "name" in classes and tag == "span":
            key = "name"
        if tag in VOID:
            return
        self.stack.append((tag, key))
        if key:
            self.capture = key

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, key = self.stack.pop()
            if key:
                self.capture = None
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.capture and self.sections:
            self.sections[-1][self.capture] += data


def main():
    parser = Shape()
    with open(sys.argv[1], encoding="utf-8") as f:
        parser.feed(f.read())
    parser.close()
    json.dump({"sections": parser.sections, "images": parser.images, "tags": parser.tags,
               "svgs": parser.tags.get("svg", 0)}, sys.stdout)


main()
