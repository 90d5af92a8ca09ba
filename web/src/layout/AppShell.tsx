import { useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useSession } from '../session';

const NAV: { to: string; label: string; roles?: string[] }[] = [
  { to: '/overview', label: 'Overview' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/activity', label: 'Activity' },
  { to: '/templates', label: 'Templates' },
  { to: '/segments', label: 'Segments' },
  { to: '/subscribers', label: 'Subscribers' },
  { to: '/suppressions', label: 'Suppressions' },
  { to: '/domains', label: 'Sender domains' },
  { to: '/webhooks', label: 'Webhooks' },
  // Members cannot manage API keys (src/dashboard/people/roles.ts).
  { to: '/keys', label: 'API keys', roles: ['owner', 'admin'] },
  { to: '/people', label: 'People' },
  { to: '/audit', label: 'Audit log' },
  { to: '/settings', label: 'Settings' },
];

export function AppShell() {
  const { session, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const [menuPath, setMenuPath] = useState(location.pathname);
  // Following a link closes the menu on small screens.
  if (menuPath !== location.pathname) {
    setMenuPath(location.pathname);
    setMenuOpen(false);
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="sidebar">
        <div className="sidebar-top">
          <Brand />
          <button
            type="button"
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="primary-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
        </div>
        <p className="account-name" title="Account">
          {session?.account?.name}
        </p>
        <nav id="primary-nav" aria-label="Main" className={menuOpen ? 'nav nav-open' : 'nav'}>
          <ul>
            {NAV.filter(
              (item) => !item.roles || item.roles.includes(session?.user?.role ?? ''),
            ).map((item) => (
              <li key={item.to}>
                <NavLink to={item.to}>{item.label}</NavLink>
              </li>
            ))}
          </ul>
          <div className="nav-user">
            <span className="nav-user-email">{session?.user?.email}</span>
            <button type="button" className="link-button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </nav>
      </header>
      <main id="main" className="main">
        <Outlet />
      </main>
    </div>
  );
}

export function Brand() {
  return (
    <span className="brand">
      <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
        <rect x="2" y="5" width="20" height="14" rx="3" fill="currentColor" opacity="0.18" />
        <path d="M3 7l9 6 9-6" fill="none" stroke="currentColor" strokeWidth="2" />
      </svg>
      Herald
    </span>
  );
}
