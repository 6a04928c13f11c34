import { Link, useLocation } from 'wouter';
import { useAccess } from '../access';
import { formatCount } from '../components/bits';
import { useOp } from '../query';

function NavLink({ href, label, count }: { href: string; label: string; count?: number | undefined }) {
  const [location] = useLocation();
  const active = location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className={active ? 'active' : ''}>
      {label}
      {count !== undefined ? <span className="count">{formatCount(count)}</span> : null}
    </Link>
  );
}

/** The views, by what people do in them; a view whose whole point is closed to the signed-in role is left out. */
export function Sidebar() {
  const stats = useOp('stats:get', {});
  const { may } = useAccess();
  return (
    <nav className="sidebar" aria-label="Views">
      <h3 className="section">Data</h3>
      <NavLink href="/instances" label="Instances" count={stats.data?.instances} />
      <NavLink href="/base-questions" label="Base questions" count={stats.data?.baseQuestions} />
      <NavLink href="/search" label="Passages" count={stats.data?.passages} />
      <NavLink href="/pipeline" label="Pipeline" />
      <NavLink href="/evaluation" label="Evaluation" />
      <h3 className="section">Annotation</h3>
      <NavLink href="/campaigns" label="Campaigns" />
      <NavLink href="/protocols" label="Protocols" />
      {may('account:list').allowed ? <NavLink href="/team" label="Team" /> : null}
      <h3 className="section">Files</h3>
      {may('dataset:import').allowed ? <NavLink href="/import" label="Import" /> : null}
      {may('dataset:export').allowed ? <NavLink href="/export" label="Export" /> : null}
      <NavLink href="/releases" label="Releases" />
      <h3 className="section">Help</h3>
      <NavLink href="/about" label="About & data" />
    </nav>
  );
}
