#!/usr/bin/env python3
"""check_owners: each typed sub-state of struct tcb (stack/tcp/tcb.h) is
written by one owning file only (docs/tcp.md "Who owns what in a tcb").
Scans stack/tcp/*.[ch] and stack/tcp/cc/*.c for writes to `->SUB.` / `.SUB.`
fields (assignments, compound assignments, ++/--, memset/memcpy into it)
and for non-const pointers taken to a sub-state (`T *p = &x->SUB`), outside
the owner, and fails listing them. Other files read the sub-state and
change it by calling the owner's functions."""
import os
import re
import sys

# sub-state (tcb field) -> owning file(s) relative to stack/tcp
OWNERS = {
    'send': ['tcp_output.c'],  # struct tcp_sndseq: SND.UNA/NXT/WND..., ISS
    'cc': ['tcp_cc.c'],  # struct tcp_cc_state: cwnd, ssthresh, the algorithm
    'rtt': ['tcp_timer.c'],  # struct tcp_rtt_est: RFC 6298 estimator
    'pace': ['tcp_pacing.c'],  # struct tcp_pacing
    'rate': ['tcp_rate.c'],  # struct tcp_rate: delivery-rate sampling
    'rcvq': ['tcp_rcvbuf.c'],  # struct tcp_rcvq_space: receive autotuning
    'rack': ['tcp_rack.c'],  # struct tcp_rack: RACK's send records and loss marks
    'tlp': ['tcp_tlp.c'],  # struct tcp_tlp: the tail loss probe
    'cnt': ['tcp_count.h'],  # struct tcp_conn_counts: bumped through its inlines
    'sb': ['tcp_sack.c'],  # struct tcp_sack_sb: the SACK scoreboard
    'rec': ['tcp_recovery.c', 'tcp_rec.h'],  # struct tcp_recovery: recovery point, dupacks,
    # SACK recovery, PRR, undo, F-RTO
    'rtx': ['tcp_timer.c'],  # struct tcp_rtx_state: backoff, timeouts, user timeout
    'recv': ['tcp_rcv.c', 'tcp_rcvseq.h'],  # struct tcp_rcvseq: RCV.NXT/WND, IRS, TS.Recent
    'ooo': ['tcp_ooo.c'],  # struct tcp_ooo_q: the receiver's out-of-order ranges
    'tm': ['tcp_timer.c'],  # struct tcp_timers: deadlines, the wheel's links
    'opt': ['tcp_sockopt.c'],  # struct tcp_opts: what setsockopt sets
    'tsk': ['tcp_sockops.c'],  # struct tcp_tstamp_keys: bytes BPF TX timestamping follows
}

ASSIGN = r'(?:[-+*/%|&^]|<<|>>)?=(?!=)|\+\+|--'


def patterns(sub):
    field = r'(?:->|\.)' + sub + r'\.[A-Za-z_]\w*(?:\[[^\]]*\])*(?:\.[A-Za-z_]\w*)*'
    return [
        re.compile(field + r'\s*(?:' + ASSIGN + r')'),
        re.compile(r'(?:\+\+|--)\s*[\w>.-]*' + field),
        re.compile(r'\bmem(?:set|cpy|move)\s*\(\s*&?[\w>.\-\[\]]*(?:->|\.)' + sub + r'\b'),
        re.compile(r'(?<!const )\bstruct\s+\w+\s*\*\s*\w+\s*=\s*&[\w>.\-]*(?:->|\.)' + sub +
                   r'\b'),
    ]


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def main():
    root = os.environ.get('SKOPS_SRC') or os.path.join(os.path.dirname(__file__), '..')
    tcp = os.path.join(root, 'stack', 'tcp')
    files = sorted(f for f in os.listdir(tcp) if f.endswith(('.c', '.h')))
    files += sorted('cc/' + f for f in os.listdir(os.path.join(tcp, 'cc')) if f.endswith('.c'))
    bad = []
    for sub, owners in OWNERS.items():
        pats = patterns(sub)
        for f in files:
            if f in owners:
                continue
            lines = strip_comments(open(os.path.join(tcp, f)).read()).split('\n')
            for n, line in enumerate(lines, 1):
                if any(p.search(line) for p in pats):
                    bad.append(f'stack/tcp/{f}:{n}: writes tcb.{sub} (owner: '
                               f'{", ".join(owners)}): {line.strip()}')
    for b in bad:
        print(b)
    if bad:
        print(f'check_owners: {len(bad)} write(s) outside the owning file', file=sys.stderr)
        return 1
    print(f'check_owners: {len(OWNERS)} sub-states, each written by its owner only')
    return 0


if __name__ == '__main__':
    sys.exit(main())
