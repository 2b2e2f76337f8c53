/** One row of `show servers state`, keyed by the header's column names (`srv_name`, `srv_addr` ...). */
export type ServerStateRow = Readonly<Record<string, string>>;

/**
 * Parses `show servers state [backend]`: a format-version line, a `# col col ...` header, then
 * space-separated rows. Columns grew across HAProxy versions, so rows are keyed by header name;
 * `-` (empty field) becomes ''.
 */
export function parseServersState(text: string): ServerStateRow[] {
  const lines = text.split('\n').map((l) => l.trim());
  const header = lines.find((l) => l.startsWith('#'));
  if (header === undefined) return [];
  const names = header.replace(/^#\s*/, '').split(/\s+/);
  const rows: ServerStateRow[] = [];
  for (const line of lines) {
    if (line === '' || line.startsWith('#') || /^\d+$/.test(line)) continue;
    const fields = line.split(/\s+/);
    const row: Record<string, string> = {};
    names.forEach((name, i) => {
      const v = fields[i] ?? '';
      row[name] = v === '-' ? '' : v;
    });
    rows.push(row);
  }
  return rows;
}

/** HAProxy's `srv_op_state` numbers. */
export function operationalState(value: string | undefined): 'up' | 'down' | 'stopping' {
  if (value === '2') return 'up';
  if (value === '3') return 'stopping';
  return 'down';
}

/** HAProxy's `srv_admin_state` bit field: any maintenance bit wins over drain. */
export function adminState(value: string | undefined): 'ready' | 'maint' | 'drain' {
  const bits = Number(value ?? 0);
  // 0x01 forced maint, 0x02 inherited maint, 0x04 config maint, 0x10 resolution maint,
  // 0x20 IP-from-DNS maint; 0x08 forced drain, 0x40 inherited drain.
  if (bits & 0x37) return 'maint';
  if (bits & 0x48) return 'drain';
  return 'ready';
}
