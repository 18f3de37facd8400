"""Tessel how-to articles, written by hand for the eval."""

from __future__ import annotations

# (id, lang, tags, title, text)
HowTo = tuple[str, str, list[str], str, str]

HOWTOS: list[HowTo] = [
    (
        "howto-publish-schedule",
        "en",
        ["scheduling"],
        "Publish a schedule",
        "Drafts are invisible to employees until you publish them. Open Schedule, pick the week, check the "
        "warnings bar (overlaps, missing breaks, overtime) and click Publish. Employees get a push notification "
        "and an email with their shifts. Changes made after publishing are sent as updates to the people "
        "affected only.",
    ),
    (
        "howto-copy-week",
        "en",
        ["scheduling"],
        "Copy last week's schedule",
        "In Schedule, open the week you want to fill and choose Copy from > Previous week. Tessel copies shifts "
        "with their positions and breaks but skips employees who are on approved leave that week; those shifts "
        "are created as open shifts instead.",
    ),
    (
        "howto-open-shifts",
        "en",
        ["scheduling"],
        "Offer open shifts",
        "An open shift has no employee. Create a shift, leave Employee empty and choose who can claim it: "
        "everyone at the location, or only people with the position. The first eligible employee who claims it "
        "gets it, unless the location requires manager approval for claims.",
    ),
    (
        "howto-shift-swap",
        "en",
        ["scheduling"],
        "Swap shifts between employees",
        "An employee opens the shift in the app and taps Swap, then chooses a colleague or offers it to "
        "everyone with the same position. When a colleague accepts, the manager approves the swap (or it is "
        "approved automatically if the location allows it). Swaps that would create overtime always need a "
        "manager.",
    ),
    (
        "howto-availability",
        "en",
        ["scheduling"],
        "Set your availability",
        "In the app go to Profile > Availability and mark the hours you cannot work, either once or every "
        "week. Managers see unavailable time in grey on the schedule. If your workspace enforces availability, "
        "managers cannot assign you a shift in that time without an override.",
    ),
    (
        "howto-time-off",
        "en",
        ["leave"],
        "Request time off",
        "Tap Time off > New request, pick the dates and the leave type and add a note if you like. Your manager "
        "gets the request at once. Approved time off removes you from open-shift offers for those days and shows "
        "on the schedule; shifts you already had are turned into open shifts.",
    ),
    (
        "howto-leave-balances",
        "en",
        ["leave"],
        "Set up leave balances",
        "Admins define leave types (vacation, sick, unpaid) in Settings > Leave, with an accrual rule per type: "
        "a fixed yearly amount, hours per hour worked, or none. Balances can be imported from a CSV at the start "
        "and are adjusted every time a request is approved.",
    ),
    (
        "howto-geofence",
        "en",
        ["time-tracking", "mobile"],
        "Add a geofence to a location",
        "Open Settings > Locations, choose the location and click Geofence. Drag the pin to the entrance and set "
        "a radius between 50 and 1000 metres; 150 metres works for most shops. From then on clock-ins from the "
        "mobile app must happen inside the circle.",
    ),
    (
        "howto-pair-kiosk",
        "en",
        ["kiosk"],
        "Set up a kiosk tablet",
        "Install Tessel Kiosk on an iPad or Android tablet and open it; it shows a pairing code. In Tessel go to "
        "Settings > Kiosks > Pair a kiosk, enter the code and choose the location. Employees clock in with their "
        "PIN, and optionally a photo. Keep the tablet plugged in and on Wi-Fi.",
    ),
    (
        "howto-reset-pin",
        "en",
        ["kiosk"],
        "Reset an employee's kiosk PIN",
        "Managers open the employee's profile, choose Kiosk PIN > Reset, and either type a new four-digit PIN or "
        "let Tessel text one to the employee. A reset also clears a PIN lock.",
    ),
    (
        "howto-approve-timesheets",
        "en",
        ["timesheets"],
        "Approve timesheets",
        "Go to Timesheets > Approvals and filter by pay period. Each row shows scheduled and worked hours and "
        "flags such as late clock-ins or missed breaks. Fix what needs fixing, then select rows and click "
        "Approve. Only approved timesheets go into payroll exports.",
    ),
    (
        "howto-payroll-export",
        "en",
        ["payroll"],
        "Export timesheets to payroll",
        "After approving the period, open Payroll > Export, pick the pay period and the format of your provider "
        "(or the Payroll Connector if it is set up) and click Export. Tessel checks pay codes and payroll IDs "
        "first and lists anything missing.",
    ),
    (
        "howto-payroll-connector",
        "en",
        ["payroll"],
        "Connect a payroll provider",
        "The Payroll Connector add-on sends approved hours straight to supported providers. In Settings > "
        "Payroll > Connector choose the provider and sign in to authorise Tessel. The authorisation lasts 90 "
        "days; owners get an email a week before it expires.",
    ),
    (
        "howto-api-token",
        "en",
        ["api"],
        "Create an API token",
        "Admins create tokens in Settings > Developers > API tokens. Give the token a name, choose its scopes "
        "and copy it: it is shown once. Create tokens from a service user rather than a person, because a "
        "token stops working when the user who made it is archived.",
    ),
    (
        "howto-webhooks",
        "en",
        ["api"],
        "Receive webhooks",
        "Add an endpoint URL in Settings > Developers > Webhooks and pick events such as shift.published or "
        "timesheet.approved. Each delivery is signed with your endpoint secret in the Tessel-Signature header; "
        "verify it before trusting the payload. Answer with a 2xx status within 10 seconds.",
    ),
    (
        "howto-bulk-shifts",
        "en",
        ["api"],
        "Create shifts in bulk through the API",
        "POST up to 500 shifts to /v2/shifts/bulk in one request. The answer lists which shifts were created and "
        "which failed with their error codes, so one overlap does not reject the whole batch. Remember that a "
        "bulk request counts as 10 requests against your rate limit.",
    ),
    (
        "howto-pagination",
        "en",
        ["api"],
        "Page through API results",
        "List endpoints return at most 100 items and a next_cursor. Pass it as ?cursor= to get the next page "
        "and stop when next_cursor is null. Cursors expire after 15 minutes.",
    ),
    (
        "howto-sso-setup",
        "en",
        ["security"],
        "Set up single sign-on",
        "Enterprise admins open Settings > Security > Single sign-on, choose SAML or OIDC and copy Tessel's "
        "callback URL into the identity provider. Then upload the IdP certificate (SAML) or client secret "
        "(OIDC), test with your own account and only then enforce SSO for the workspace.",
    ),
    (
        "howto-2fa",
        "en",
        ["security"],
        "Turn on two-factor authentication",
        "In Profile > Security choose Two-factor authentication, scan the QR code with an authenticator app "
        "and type the code it shows. Save the ten recovery codes somewhere safe; each works once.",
    ),
    (
        "howto-reset-2fa",
        "en",
        ["security"],
        "Reset someone's two-factor authentication",
        "Owners can reset two-factor authentication for a user who lost their phone: open the user's profile, "
        "choose Security > Reset two-factor. The user sets it up again at their next sign-in. The reset is "
        "recorded in the audit log.",
    ),
    (
        "howto-import-employees",
        "en",
        ["employees"],
        "Import employees from a CSV",
        "Download the template from Employees > Import, fill one row per person (email, first name, last name, "
        "position, location, payroll ID) and upload it. Tessel shows a preview with any problems before anything "
        "is created; invitations are sent only when you confirm.",
    ),
    (
        "howto-archive-employee",
        "en",
        ["employees"],
        "Archive an employee who left",
        "Open the employee's profile and choose Archive. Their future shifts become open shifts, their seat is "
        "freed and their timesheets stay available for payroll and audits. Archived employees can be restored "
        "later with their history.",
    ),
    (
        "howto-roles",
        "en",
        ["employees", "security"],
        "Roles and what they can do",
        "Owners manage billing and can delete the workspace. Admins manage settings, integrations and every "
        "location. Managers schedule and approve timesheets for their locations. Staff see their own shifts, "
        "swap them and clock in.",
    ),
    (
        "howto-labour-rules",
        "en",
        ["compliance"],
        "Configure labour rules per location",
        "In Settings > Locations > Labour rules set the maximum hours per day and week, the break a shift "
        "needs after a number of hours, and the minimum rest between shifts. Tessel warns when a schedule "
        "breaks a rule and blocks publishing if you turn on strict mode.",
    ),
    (
        "howto-restore-workspace",
        "en",
        ["data"],
        "Restore a deleted workspace",
        "Open the link in the deletion confirmation email and click Restore, or ask support. Restoring brings "
        "back every schedule, timesheet and employee exactly as they were, as long as the retention period has "
        "not ended.",
    ),
    (
        "howto-export-data",
        "en",
        ["data"],
        "Download a full export of your data",
        "Owners can download everything from Settings > Data > Full export: a ZIP with CSV files for employees, "
        "shifts, timesheets, leave and the audit log. Large workspaces receive an email when the file is ready.",
    ),
    (
        "howto-cancel",
        "en",
        ["billing"],
        "Cancel a subscription",
        "Owners cancel in Billing > Plan > Cancel subscription. The workspace stays on the paid plan until the "
        "end of the period and then becomes read-only. Cancelling does not delete data; deleting the workspace "
        "is a separate step.",
    ),
    (
        "howto-update-card",
        "en",
        ["billing"],
        "Update the payment card",
        "Go to Billing > Payment method and click Replace card. The new card is used for open invoices within "
        "an hour and for every renewal after that.",
    ),
    (
        "howto-calendar-sync",
        "en",
        ["integrations"],
        "Sync shifts to your calendar",
        "In Profile > Calendar sync connect Google or Outlook, or copy the iCal link into any other calendar. "
        "Published shifts appear within 15 minutes; drafts never do.",
    ),
    (
        "howto-slack",
        "en",
        ["integrations"],
        "Post swap requests to Slack",
        "Install the Slack integration from Settings > Integrations and pick a channel per location. Swap "
        "requests, open shifts and late clock-ins are posted there, and managers can approve swaps with a "
        "button in Slack.",
    ),
    (
        "howto-labour-cost",
        "en",
        ["reports"],
        "Read the labour cost report",
        "Reports > Labour cost compares scheduled and actual wages per day and location. Connect a POS "
        "integration to see labour as a percentage of sales; days without sales data are shown hatched.",
    ),
    (
        "howto-publicar-horario",
        "es",
        ["turnos"],
        "Publicar un horario",
        "Los borradores no los ven los empleados hasta que se publican. Abre Horario, elige la semana, revisa "
        "los avisos (solapamientos, descansos, horas extra) y pulsa Publicar. Cada empleado recibe una "
        "notificación y un correo con sus turnos.",
    ),
    (
        "howto-cambio-turno",
        "es",
        ["turnos"],
        "Cambiar un turno con un compañero",
        "En la app abre el turno y pulsa Cambiar; elige a un compañero u ofrécelo a todos los que tengan el "
        "mismo puesto. Cuando alguien acepta, el responsable aprueba el cambio. Los cambios que generan horas "
        "extra siempre necesitan aprobación.",
    ),
    (
        "howto-vacaciones",
        "es",
        ["ausencias"],
        "Solicitar vacaciones o días libres",
        "Pulsa Ausencias > Nueva solicitud, elige las fechas y el tipo de ausencia. Tu responsable la recibe al "
        "momento. Las ausencias aprobadas aparecen en el horario y tus turnos de esos días pasan a ser turnos "
        "abiertos.",
    ),
    (
        "howto-quiosco",
        "es",
        ["quiosco"],
        "Configurar una tableta como quiosco",
        "Instala Tessel Kiosk en la tableta y ábrela: muestra un código de emparejamiento. En Tessel ve a "
        "Ajustes > Quioscos > Emparejar, escribe el código y elige el local. Los empleados fichan con su PIN.",
    ),
    (
        "howto-exportar-nomina",
        "es",
        ["nómina"],
        "Exportar fichajes a la nómina",
        "Aprueba primero los fichajes del periodo. Después abre Nómina > Exportar, elige el periodo y el formato "
        "de tu proveedor y pulsa Exportar. Tessel revisa antes los códigos de pago y los ID de nómina.",
    ),
    (
        "howto-token-api",
        "es",
        ["api"],
        "Crear un token de la API",
        "Los administradores crean tokens en Ajustes > Desarrolladores > Tokens de API. Elige los permisos y "
        "copia el token, que solo se muestra una vez. Créalo desde un usuario de servicio: el token deja de "
        "funcionar si se archiva a quien lo creó.",
    ),
    (
        "howto-geocerca",
        "es",
        ["fichajes"],
        "Añadir una geocerca a un local",
        "Abre Ajustes > Locales, elige el local y pulsa Geocerca. Arrastra el marcador hasta la entrada y fija "
        "un radio de entre 50 y 1000 metros; 150 metros sirve para casi todas las tiendas.",
    ),
    (
        "howto-cancelar",
        "es",
        ["facturación"],
        "Cancelar la suscripción",
        "El propietario cancela en Facturación > Plan > Cancelar suscripción. El espacio de trabajo sigue en el "
        "plan de pago hasta el final del periodo y luego pasa a solo lectura; cancelar no borra los datos.",
    ),
]
