import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Location, Navigate, Route, Routes, useLocation } from 'react-router';
import { AppShell } from './layout/AppShell';
import { ForgotPasswordPage, JoinPage, ResetPasswordPage } from './pages/AccessPages';
import { AuditPage } from './pages/AuditPage';
import { SignInPage, SignUpPage } from './pages/AuthPages';
import { CampaignDetailPage, CampaignsPage, NewCampaignPage } from './pages/CampaignsPages';
import { DomainDetailPage, DomainsPage } from './pages/DomainsPages';
import { KeysPage } from './pages/KeysPage';
import { OverviewPage } from './pages/OverviewPage';
import { WebhookDetailPage, WebhooksPage } from './pages/WebhooksPages';
import { PeoplePage } from './pages/PeoplePage';
import { SegmentEditorPage, SegmentsPage } from './pages/SegmentsPages';
import { SettingsPage } from './pages/SettingsPage';
import { SubscriberDetailPage } from './pages/SubscriberDetailPage';
import { ImportPage } from './pages/ImportPage';
import { SubscribersPage } from './pages/SubscribersPage';
import { ActivityPage, MessageDetailPage } from './pages/ActivityPage';
import { SuppressionsPage } from './pages/SuppressionsPage';
import { TemplateEditorPage, TemplatesPage } from './pages/TemplatesPages';
import { SessionProvider, useSession } from './session';
import { ErrorNotice, Loading } from './ui/Notice';
import './styles.css';

function App() {
  const { session, probeError } = useSession();
  const location = useLocation();
  if (probeError) return <ErrorNotice>{probeError}</ErrorNotice>;
  if (!session) return <Loading label="Starting Herald…" />;

  if (!session.user) {
    return (
      <Routes>
        <Route path="/signup" element={<SignUpPage />} />
        <Route path="/signin" element={<SignInPage />} />
        <Route path="/join" element={<JoinPage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        <Route path="*" element={<Navigate to="/signin" replace state={{ from: location }} />} />
      </Routes>
    );
  }
  const from = (location.state as { from?: Location } | null)?.from;
  return (
    <Routes>
      {/* Just signed up or in: new accounts start at their API keys, others where they were going. */}
      <Route path="/signup" element={<Navigate to="/keys" replace />} />
      <Route path="/signin" element={<Navigate to={from ?? '/campaigns'} replace />} />
      {/* Links from mail work signed in too: joining or resetting starts a new session. */}
      <Route path="/join" element={<JoinPage />} />
      <Route path="/reset-password" element={<ResetPasswordPage />} />
      <Route element={<AppShell />}>
        <Route path="/overview" element={<OverviewPage />} />
        <Route path="/campaigns" element={<CampaignsPage />} />
        <Route path="/campaigns/new" element={<NewCampaignPage />} />
        <Route path="/campaigns/:id" element={<CampaignDetailPage />} />
        <Route path="/templates" element={<TemplatesPage />} />
        <Route path="/templates/:id" element={<TemplateEditorPage />} />
        <Route path="/segments" element={<SegmentsPage />} />
        <Route path="/segments/:id" element={<SegmentEditorPage />} />
        <Route path="/subscribers" element={<SubscribersPage />} />
        <Route path="/subscribers/import" element={<ImportPage />} />
        <Route path="/subscribers/:id" element={<SubscriberDetailPage />} />
        <Route path="/suppressions" element={<SuppressionsPage />} />
        <Route path="/activity" element={<ActivityPage />} />
        <Route path="/activity/:id" element={<MessageDetailPage />} />
        <Route path="/domains" element={<DomainsPage />} />
        <Route path="/domains/:id" element={<DomainDetailPage />} />
        <Route path="/webhooks" element={<WebhooksPage />} />
        <Route path="/webhooks/:id" element={<WebhookDetailPage />} />
        <Route path="/keys" element={<KeysPage />} />
        <Route path="/people" element={<PeoplePage />} />
        <Route path="/audit" element={<AuditPage />} />
        <Route path="/settings" element={<SettingsPage />} />
        <Route path="*" element={<Navigate to="/campaigns" replace />} />
      </Route>
    </Routes>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/dashboard">
      <SessionProvider>
        <App />
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>,
);
