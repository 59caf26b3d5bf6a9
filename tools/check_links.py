#!/usr/bin/env python3
"""tools/check_links.py [DIR]: list every relative link of README.md, doc/*.md and
tools/bench/README.md (fenced and indented code skipped) and check
that its target exists, and that an #anchor names a heading of a Markdown target
(GitHub's slugs)."""
import glob, os, re, sys
os.chdir(sys.argv[1] if len(sys.argv) > 1 else '.')
files = ['README.md', 'tools/bench/README.md'] + sorted(glob.glob('doc/*.md'))
link_re = re.compile(r'!?\[(?:[^\]`]|`[^`]*`)*\]\(([^)\s]+)\)')
def slug(h):
    h = h.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h)   # drop punctuation (keeps letters, digits, _, -, space)
    return h.replace(' ', '-')
def anchors(path):
    out, seen = set(), {}
    in_code = False
    for line in open(path):
        if line.startswith('```'):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r'#{1,6}\s+(.*)', line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out
bad = n = 0
for f in files:
    text = open(f).read()
    # skip fenced code and indented code blocks
    lines, keep, in_code = text.split('\n'), [], False
    for l in lines:
        if l.startswith('```'):
            in_code = not in_code; continue
        if in_code or l.startswith('    '):
            continue
        keep.append(l)
    for m in link_re.finditer('\n'.join(keep)):
        target = m.group(1)
        if re.match(r'[a-z]+:', target):
            continue
        n += 1
        path, _, anchor = target.partition('#')
        full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        ok = os.path.exists(full)
        why = '' if ok else 'no such file'
        if ok and anchor and full.endswith('.md') and anchor not in anchors(full):
            ok, why = False, f'no heading #{anchor}'
        print(f'{"ok  " if ok else "BAD "} {f}: {target}' + (f'  ({why})' if why else ''))
        bad += not ok
print(f'{n} relative links, {bad} broken')
sys.exit(1 if bad else 0)
