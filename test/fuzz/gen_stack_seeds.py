#!/usr/bin/python3
# gen_stack_seeds.py DIR: the seed corpus of fuzz_stack (records as fuzz_stack.c
# reads them). The ACK numbers assume the ISN and ephemeral port of stack
# seed 2 on the manual clock; FUZZ_STACK_TRACE=1 shows them if they change.
import struct, sys, os
from scapy.all import Ether, ARP, IP, TCP, UDP, ICMP, IPv6, ICMPv6EchoRequest, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, raw, fragment
B='02:00:00:00:00:02'; A='02:00:00:00:00:01'
def rec(f, adv=0):
    b=raw(f); return bytes([adv])+struct.pack('<H',len(b))+b
def seed(name, frames, flags=0):
    open(os.path.join(sys.argv[1], name),'wb').write(bytes([flags])+b''.join(rec(f,a) for f,a in frames))
arp_req=Ether(dst='ff:ff:ff:ff:ff:ff',src=B)/ARP(op=1,hwsrc=B,psrc='198.18.0.2',pdst='198.18.0.1')
arp_rep=Ether(dst=A,src=B)/ARP(op=2,hwsrc=B,psrc='198.18.0.2',hwdst=A,pdst='198.18.0.1')
opts=[('MSS',1460),('SAckOK',b''),('Timestamp',(1,0)),('NOP',None),('WScale',7)]
syn=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/TCP(sport=40000,dport=5001,flags='S',seq=1000,options=opts)
ack=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/TCP(sport=40000,dport=5001,flags='A',seq=1001,ack=0x65156a7a)
data=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/TCP(sport=40000,dport=5001,flags='PA',seq=1001,ack=0x65156a7a)/(b'x'*100)
fin=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/TCP(sport=40000,dport=5001,flags='FA',seq=1101,ack=0x65156a7a)
rst=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/TCP(sport=40000,dport=5001,flags='R',seq=1001)
synack80=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/TCP(sport=80,dport=37961,flags='SA',seq=5000,ack=0x55df6900,options=opts)
ping=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/ICMP()/b'ping'
udp=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/UDP(sport=9999,dport=7)/b'hello'
udp_closed=Ether(dst=A,src=B)/IP(src='198.18.0.2',dst='198.18.0.1')/UDP(sport=9999,dport=9)/b'hello'
frags=[Ether(dst=A,src=B)/f for f in fragment(IP(src='198.18.0.2',dst='198.18.0.1')/UDP(sport=1,dport=7)/(b'y'*3000), fragsize=1400)]
ns=Ether(dst='33:33:ff:00:00:01',src=B)/IPv6(src='fd00:1::2',dst='ff02::1:ff00:1',hlim=255)/ICMPv6ND_NS(tgt='fd00:1::1')/ICMPv6NDOptSrcLLAddr(lladdr=B)
syn6=Ether(dst=A,src=B)/IPv6(src='fd00:1::2',dst='fd00:1::1')/TCP(sport=40001,dport=5002,flags='S',seq=7,options=opts)
ping6=Ether(dst=A,src=B)/IPv6(src='fd00:1::2',dst='fd00:1::1')/ICMPv6EchoRequest(data=b'ping')
seed('arp', [(arp_req,0),(arp_rep,0)])
seed('syn_ack_data_fin', [(arp_rep,0),(syn,0),(ack,1),(data,1),(fin,1)])
seed('syn_rst', [(syn,0),(rst,5)])
seed('active_synack', [(arp_rep,0),(synack80,1)])
seed('icmp_udp', [(arp_rep,0),(ping,0),(udp,0),(udp_closed,0)])
seed('frags', [(f,0) for f in frags])
seed('v6', [(ns,0),(syn6,0),(ping6,1)])
seed('raw_syn', [(syn,0)], flags=1)
