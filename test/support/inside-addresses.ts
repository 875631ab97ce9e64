// Inside addresses in the spellings a tenant could write them, by the class the address policy
// (src/lib/address-policy.ts) gives them: what the proxy setting and the webhook URL both refuse.
import type { AddressClass } from "../../src/lib/address-policy.ts";

/** Each class with several spellings of one of its addresses, as a tenant could write them. */
export const INSIDE_ADDRESSES: [AddressClass, string[]][] = [
  [
    "loopback",
    [
      "http://127.0.0.1:9",
      "http://2130706433:9",
      "http://0x7f.0.0.1:9",
      "http://0177.0.0.1:9",
      "http://127.1:9",
      "http://[::1]:9",
      "http://[0:0:0:0:0:0:0:1]:9",
      "http://[::ffff:127.0.0.1]:9",
      "http://[::ffff:7f00:1]:9",
      "http://[::127.0.0.2]:9",
      "http://[64:ff9b::127.0.0.1]:9",
      "http://[2002:7f00:1::]:9",
      "http://localhost:9",
      "http://localhost.:9",
      "http://LOCALHOST:9",
      "http://api.localhost:9",
    ],
  ],
  ["unspecified", ["http://0.0.0.0:9", "http://0:9", "http://[::]:9", "http://[0:0:0:0:0:0:0:0]:9"]],
  [
    "private",
    [
      "http://10.1.2.3:9",
      "http://167838211:9",
      "http://0xa.1.2.3:9",
      "http://172.16.0.1:9",
      "http://172.31.255.255:9",
      "http://192.168.0.1:9",
      "http://[::ffff:192.168.0.1]:9",
      "http://[fec0::1]:9",
    ],
  ],
  ["shared (carrier-grade NAT)", ["http://100.64.0.1:9", "http://100.127.255.254:9"]],
  ["link-local", ["http://169.254.1.1:9", "http://[fe80::1]:9", "http://[::ffff:169.254.1.1]:9"]],
  [
    "cloud metadata",
    [
      "http://169.254.169.254:80",
      "http://2852039166:80",
      "http://0xa9.0xfe.0xa9.0xfe:80",
      "http://[::ffff:169.254.169.254]:80",
      "http://[fd00:ec2::254]:80",
      "http://100.100.100.200:80",
      "http://192.0.0.192:80",
      "http://metadata.google.internal.:80",
    ],
  ],
  ["multicast", ["http://224.0.0.1:9", "http://239.255.255.250:9", "http://[ff02::1]:9"]],
  ["reserved", ["http://240.0.0.1:9", "http://198.18.0.1:9", "http://[::1.2.3.4]:9", "http://[100::1]:9"]],
  ["broadcast", ["http://255.255.255.255:9", "http://4294967295:9"]],
  ["unique-local", ["http://[fc00::1]:9", "http://[fd12:3456::1]:9"]],
  ["internal name", ["http://proxy:3128", "http://squid.internal:3128", "http://printer.local:3128", "http://gw.home.arpa:3128"]],
];
