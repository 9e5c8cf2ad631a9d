/** GET and POST /api/staff — staff accounts: list, invite, role, suspension (owner, permission staff.manage). */
import { endpoint, route } from "../lib/http/handler.js";
import { inviteStaff, staffView } from "../lib/staff/accounts.js";
import { changeStaff, listStaff } from "../lib/staff/manage-staff.js";
import { changeStaffOperation, listStaffOperation } from "../lib/staff/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listStaffOperation, async () => ({ staff: await listStaff() })),
  POST: endpoint(changeStaffOperation, async ({ body }) => {
    if (body.action === "invite") {
      const { staff } = await inviteStaff({
        email: body.email,
        role: body.role,
        displayName: body.display_name,
      });
      return { staff: staffView(staff) };
    }
    return {
      staff: await changeStaff({
        action: body.action,
        staffId: body.staff_id,
        ...(body.action === "set_role" ? { role: body.role } : {}),
      } as Parameters<typeof changeStaff>[0]),
    };
  }),
});
