/* Disassembly in bpftool's xlated syntax (kernel/bpf/disasm.c is the model
 * for the spelling: "r1 = *(u32 *)(r1 +4)", "if r1 != 0x4 goto pc+3",
 * "call bpf_setsockopt#49", "lock *(u64 *)(r1 +0) += r2"). Helper names come
 * from a static table numbered as enum bpf_func_id in linux/bpf.h. */
#include <stdio.h>

#include "vrf_int.h"

static const char *const helper_names[] = {
    [0] = "unspec",
    [1] = "map_lookup_elem",
    [2] = "map_update_elem",
    [3] = "map_delete_elem",
    [4] = "probe_read",
    [5] = "ktime_get_ns",
    [6] = "trace_printk",
    [7] = "get_prandom_u32",
    [8] = "get_smp_processor_id",
    [9] = "skb_store_bytes",
    [10] = "l3_csum_replace",
    [11] = "l4_csum_replace",
    [12] = "tail_call",
    [13] = "clone_redirect",
    [14] = "get_current_pid_tgid",
    [15] = "get_current_uid_gid",
    [16] = "get_current_comm",
    [17] = "get_cgroup_classid",
    [18] = "skb_vlan_push",
    [19] = "skb_vlan_pop",
    [20] = "skb_get_tunnel_key",
    [21] = "skb_set_tunnel_key",
    [22] = "perf_event_read",
    [23] = "redirect",
    [24] = "get_route_realm",
    [25] = "perf_event_output",
    [26] = "skb_load_bytes",
    [27] = "get_stackid",
    [28] = "csum_diff",
    [29] = "skb_get_tunnel_opt",
    [30] = "skb_set_tunnel_opt",
    [31] = "skb_change_proto",
    [32] = "skb_change_type",
    [33] = "skb_under_cgroup",
    [34] = "get_hash_recalc",
    [35] = "get_current_task",
    [36] = "probe_write_user",
    [37] = "current_task_under_cgroup",
    [38] = "skb_change_tail",
    [39] = "skb_pull_data",
    [40] = "csum_update",
    [41] = "set_hash_invalid",
    [42] = "get_numa_node_id",
    [43] = "skb_change_head",
    [44] = "xdp_adjust_head",
    [45] = "probe_read_str",
    [46] = "get_socket_cookie",
    [47] = "get_socket_uid",
    [48] = "set_hash",
    [49] = "setsockopt",
    [50] = "skb_adjust_room",
    [51] = "redirect_map",
    [52] = "sk_redirect_map",
    [53] = "sock_map_update",
    [54] = "xdp_adjust_meta",
    [55] = "perf_event_read_value",
    [56] = "perf_prog_read_value",
    [57] = "getsockopt",
    [58] = "override_return",
    [59] = "sock_ops_cb_flags_set",
    [60] = "msg_redirect_map",
    [61] = "msg_apply_bytes",
    [62] = "msg_cork_bytes",
    [63] = "msg_pull_data",
    [64] = "bind",
    [65] = "xdp_adjust_tail",
    [66] = "skb_get_xfrm_state",
    [67] = "get_stack",
    [68] = "skb_load_bytes_relative",
    [69] = "fib_lookup",
    [70] = "sock_hash_update",
    [71] = "msg_redirect_hash",
    [72] = "sk_redirect_hash",
    [73] = "lwt_push_encap",
    [74] = "lwt_seg6_store_bytes",
    [75] = "lwt_seg6_adjust_srh",
    [76] = "lwt_seg6_action",
    [77] = "rc_repeat",
    [78] = "rc_keydown",
    [79] = "skb_cgroup_id",
    [80] = "get_current_cgroup_id",
    [81] = "get_local_storage",
    [82] = "sk_select_reuseport",
    [83] = "skb_ancestor_cgroup_id",
    [84] = "sk_lookup_tcp",
    [85] = "sk_lookup_udp",
    [86] = "sk_release",
    [87] = "map_push_elem",
    [88] = "map_pop_elem",
    [89] = "map_peek_elem",
    [90] = "msg_push_data",
    [91] = "msg_pop_data",
    [92] = "rc_pointer_rel",
    [93] = "spin_lock",
    [94] = "spin_unlock",
    [95] = "sk_fullsock",
    [96] = "tcp_sock",
    [97] = "skb_ecn_set_ce",
    [98] = "get_listener_sock",
    [99] = "skc_lookup_tcp",
    [100] = "tcp_check_syncookie",
    [101] = "sysctl_get_name",
    [102] = "sysctl_get_current_value",
    [103] = "sysctl_get_new_value",
    [104] = "sysctl_set_new_value",
    [105] = "strtol",
    [106] = "strtoul",
    [107] = "sk_storage_get",
    [108] = "sk_storage_delete",
    [109] = "send_signal",
    [110] = "tcp_gen_syncookie",
    [111] = "skb_output",
    [112] = "probe_read_user",
    [113] = "probe_read_kernel",
    [114] = "probe_read_user_str",
    [115] = "probe_read_kernel_str",
    [116] = "tcp_send_ack",
    [117] = "send_signal_thread",
    [118] = "jiffies64",
    [119] = "read_branch_records",
    [120] = "get_ns_current_pid_tgid",
    [121] = "xdp_output",
    [122] = "get_netns_cookie",
    [123] = "get_current_ancestor_cgroup_id",
    [124] = "sk_assign",
    [125] = "ktime_get_boot_ns",
    [126] = "seq_printf",
    [127] = "seq_write",
    [128] = "sk_cgroup_id",
    [129] = "sk_ancestor_cgroup_id",
    [130] = "ringbuf_output",
    [131] = "ringbuf_reserve",
    [132] = "ringbuf_submit",
    [133] = "ringbuf_discard",
    [134] = "ringbuf_query",
    [135] = "csum_level",
    [136] = "skc_to_tcp6_sock",
    [137] = "skc_to_tcp_sock",
    [138] = "skc_to_tcp_timewait_sock",
    [139] = "skc_to_tcp_request_sock",
    [140] = "skc_to_udp6_sock",
    [141] = "get_task_stack",
    [142] = "load_hdr_opt",
    [143] = "store_hdr_opt",
    [144] = "reserve_hdr_opt",
    [145] = "inode_storage_get",
    [146] = "inode_storage_delete",
    [147] = "d_path",
    [148] = "copy_from_user",
    [149] = "snprintf_btf",
    [150] = "seq_printf_btf",
    [151] = "skb_cgroup_classid",
    [152] = "redirect_neigh",
    [153] = "per_cpu_ptr",
    [154] = "this_cpu_ptr",
    [155] = "redirect_peer",
    [156] = "task_storage_get",
    [157] = "task_storage_delete",
    [158] = "get_current_task_btf",
    [159] = "bprm_opts_set",
    [160] = "ktime_get_coarse_ns",
    [161] = "ima_inode_hash",
    [162] = "sock_from_file",
    [163] = "check_mtu",
    [164] = "for_each_map_elem",
    [165] = "snprintf",
    [166] = "sys_bpf",
    [167] = "btf_find_by_name_kind",
    [168] = "sys_close",
    [169] = "timer_init",
    [170] = "timer_set_callback",
    [171] = "timer_start",
    [172] = "timer_cancel",
    [173] = "get_func_ip",
    [174] = "get_attach_cookie",
    [175] = "task_pt_regs",
    [176] = "get_branch_snapshot",
    [177] = "trace_vprintk",
    [178] = "skc_to_unix_sock",
    [179] = "kallsyms_lookup_name",
    [180] = "find_vma",
    [181] = "loop",
    [182] = "strncmp",
    [183] = "get_func_arg",
    [184] = "get_func_ret",
    [185] = "get_func_arg_cnt",
    [186] = "get_retval",
    [187] = "set_retval",
    [188] = "xdp_get_buff_len",
    [189] = "xdp_load_bytes",
    [190] = "xdp_store_bytes",
    [191] = "copy_from_user_task",
    [192] = "skb_set_tstamp",
    [193] = "ima_file_hash",
    [194] = "kptr_xchg",
    [195] = "map_lookup_percpu_elem",
    [196] = "skc_to_mptcp_sock",
    [197] = "dynptr_from_mem",
    [198] = "ringbuf_reserve_dynptr",
    [199] = "ringbuf_submit_dynptr",
    [200] = "ringbuf_discard_dynptr",
    [201] = "dynptr_read",
    [202] = "dynptr_write",
    [203] = "dynptr_data",
    [204] = "tcp_raw_gen_syncookie_ipv4",
    [205] = "tcp_raw_gen_syncookie_ipv6",
    [206] = "tcp_raw_check_syncookie_ipv4",
    [207] = "tcp_raw_check_syncookie_ipv6",
    [208] = "ktime_get_tai_ns",
    [209] = "user_ringbuf_drain",
};

const char *vrf_helper_name(uint32_t id)
{
	if (id == 0 || id >= sizeof(helper_names) / sizeof(helper_names[0]))
		return NULL;
	return helper_names[id];
}

static const char *const alu_ops[16] = {
    "+=",  "-=", "*=", "/=", "|=",   "&=",     "<<=", ">>=",
    "neg", "%=", "^=", "=",  "s>>=", "endian", "?",   "?",
};

static const char *const jmp_ops[16] = {
    "jmp",  "==",   ">", ">=", "&",  "!=",  "s>", "s>=",
    "call", "exit", "<", "<=", "s<", "s<=", "?",  "?",
};

static const char *size_name(uint8_t code, bool sign)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:
		return sign ? "s8" : "u8";
	case BPF_H:
		return sign ? "s16" : "u16";
	case BPF_W:
		return sign ? "s32" : "u32";
	default:
		return "u64";
	}
}

static int alu(const struct bpfvm_insn *in, char *buf, size_t size)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	char r = is64 ? 'r' : 'w';
	uint8_t op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;

	if (op == BPF_NEG)
		return snprintf(buf, size, "%c%u = -%c%u", r, in->dst, r, in->dst);
	if (op == BPF_END) {
		const char *kind = is64 ? "bswap" : (x ? "be" : "le");
		return snprintf(buf, size, "r%u = %s%d r%u", in->dst, kind, in->imm, in->dst);
	}
	if (op == BPF_MOV && in->off && x)
		return snprintf(buf, size, "%c%u = (s%d)%c%u", r, in->dst, in->off, r, in->src);
	const char *o = alu_ops[op >> 4];
	const char *s = (in->off == 1 && (op == BPF_DIV || op == BPF_MOD)) ? "s" : "";
	if (x)
		return snprintf(buf, size, "%c%u %s%s %c%u", r, in->dst, s, o, r, in->src);
	return snprintf(buf, size, "%c%u %s%s %d", r, in->dst, s, o, in->imm);
}

static int atomic(const struct bpfvm_insn *in, char *buf, size_t size)
{
	const char *sz = size_name(in->code, false);
	const char *w = BPF_SIZE(in->code) == BPF_DW ? "64" : "";
	int op = in->imm & ~BPF_FETCH;
	const char *name = op == BPF_ADD   ? "add"
			   : op == BPF_AND ? "and"
			   : op == BPF_OR  ? "or"
			   : op == BPF_XOR ? "xor"
					   : "?";
	if (in->imm == BPF_CMPXCHG)
		return snprintf(buf, size, "r0 = atomic%s_cmpxchg((%s *)(r%u %+d), r0, r%u)", w, sz,
				in->dst, in->off, in->src);
	if (in->imm == BPF_XCHG)
		return snprintf(buf, size, "r%u = atomic%s_xchg((%s *)(r%u %+d), r%u)", in->src, w,
				sz, in->dst, in->off, in->src);
	if (in->imm & BPF_FETCH)
		return snprintf(buf, size, "r%u = atomic%s_fetch_%s((%s *)(r%u %+d), r%u)", in->src,
				w, name, sz, in->dst, in->off, in->src);
	return snprintf(buf, size, "lock *(%s *)(r%u %+d) %s r%u", sz, in->dst, in->off,
			alu_ops[(op & 0xf0) >> 4], in->src);
}

static int jmp(const struct bpfvm_insn *in, char *buf, size_t size)
{
	bool j32 = BPF_CLASS(in->code) == BPF_JMP32;
	uint8_t op = BPF_OP(in->code);
	char r = j32 ? 'w' : 'r';

	if (op == BPF_EXIT)
		return snprintf(buf, size, "exit");
	if (op == BPF_JA)
		return j32 ? snprintf(buf, size, "gotol pc%+d", in->imm)
			   : snprintf(buf, size, "goto pc%+d", in->off);
	if (op == BPF_CALL) {
		if (in->src == BPF_PSEUDO_CALL)
			return snprintf(buf, size, "call pc%+d", in->imm);
		if (in->src == BPF_PSEUDO_KFUNC_CALL)
			return snprintf(buf, size, "call kernel-function#%#x", (uint32_t)in->imm);
		const char *n = vrf_helper_name((uint32_t)in->imm);
		if (n)
			return snprintf(buf, size, "call bpf_%s#%d", n, in->imm);
		return snprintf(buf, size, "call unknown#%d", in->imm);
	}
	if (BPF_SRC(in->code) == BPF_X)
		return snprintf(buf, size, "if %c%u %s %c%u goto pc%+d", r, in->dst,
				jmp_ops[op >> 4], r, in->src, in->off);
	return snprintf(buf, size, "if %c%u %s 0x%x goto pc%+d", r, in->dst, jmp_ops[op >> 4],
			(uint32_t)in->imm, in->off);
}

int vrf_disasm(const struct bpfvm_insn *in, const struct bpfvm_insn *next,
	       uint32_t (*map_id)(void *arg, uint64_t ptr), void *arg, char *buf, size_t size)
{
	uint8_t cls = BPF_CLASS(in->code), mode = BPF_MODE(in->code);
	int n;

	if (!size)
		return 0;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		n = alu(in, buf, size);
		break;
	case BPF_LDX:
		n = snprintf(buf, size, "r%u = *(%s *)(r%u %+d)", in->dst,
			     size_name(in->code, mode == BPF_MEMSX), in->src, in->off);
		break;
	case BPF_ST:
		n = snprintf(buf, size, "*(%s *)(r%u %+d) = %d", size_name(in->code, false),
			     in->dst, in->off, in->imm);
		break;
	case BPF_STX:
		if (mode == BPF_ATOMIC)
			n = atomic(in, buf, size);
		else
			n = snprintf(buf, size, "*(%s *)(r%u %+d) = r%u",
				     size_name(in->code, false), in->dst, in->off, in->src);
		break;
	case BPF_LD:
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			uint64_t v = (uint64_t)(uint32_t)in->imm |
				     (next ? (uint64_t)(uint32_t)next->imm << 32 : 0);
			if (in->src == BPF_PSEUDO_MAP_FD && map_id)
				n = snprintf(buf, size, "r%u = map[id:%u]", in->dst,
					     map_id(arg, v));
			else if (in->src == BPF_PSEUDO_MAP_FD)
				n = snprintf(buf, size, "r%u = map[fd:%llx]", in->dst,
					     (unsigned long long)v);
			else if (in->src == BPF_PSEUDO_MAP_VALUE)
				n = snprintf(buf, size, "r%u = map_value[0x%llx]", in->dst,
					     (unsigned long long)v);
			else if (in->src == BPF_PSEUDO_FUNC)
				n = snprintf(buf, size, "r%u = subprog[%d]", in->dst, in->imm);
			else
				n = snprintf(buf, size, "r%u = 0x%llx", in->dst,
					     (unsigned long long)v);
			break;
		}
		n = snprintf(buf, size, "BUG_ld_%02x", in->code);
		break;
	default:
		n = jmp(in, buf, size);
		break;
	}
	if (n < 0)
		n = 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

static uint32_t public_map_id(void *arg, uint64_t ptr)
{
	(void)arg;
	return bpfvm_map_id((const struct bpfvm_map *)(uintptr_t)ptr);
}

/* Public form: insns come from a loaded program, so map references point at
 * live maps. */
int bpfvm_disasm(const struct bpfvm_insn *insn, const struct bpfvm_insn *next, char *buf,
		 size_t size)
{
	return vrf_disasm(insn, next, public_map_id, NULL, buf, size);
}
