/** An account, as every lookup answers it (DESIGN.md §3). */
export interface Account {
  id: string;
  email: string;
  plan: string;
  created_at: number;
}
