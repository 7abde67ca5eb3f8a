"""PowerShell's approved verbs (Get-Verb): each verb's alias prefix and group, from
PowerShell's list of approved verbs; the descriptions are fayshell's words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

VerbGroup = Literal[
    "Common", "Communications", "Data", "Diagnostic", "Lifecycle", "Other", "Security"
]
GROUPS: tuple[VerbGroup, ...] = get_args(VerbGroup)


@dataclass(frozen=True)
class VerbInfo:
    """A verb as Get-Verb lists it."""

    TYPE_NAME = "System.Management.Automation.VerbInfo"

    Verb: str
    AliasPrefix: str
    Group: str
    Description: str


def _group(group: VerbGroup, rows: str) -> list[VerbInfo]:
    """``Verb prefix description`` lines of one group."""
    out = []
    for line in rows.strip().splitlines():
        verb, prefix, said = line.split(maxsplit=2)
        out.append(VerbInfo(verb, prefix, group, said))
    return out


VERBS: tuple[VerbInfo, ...] = tuple(
    _group(
        "Common",
        """
Add a Puts a resource into a container or beside another
Clear cl Empties a container or resets a value, keeping the container
Close cs Ends access to a resource that was opened
Copy cp Duplicates a resource in another place or under another name
Enter et Makes an environment or mode the current one
Exit ex Leaves the current environment or mode
Find fd Looks for a resource among others
Format f Lays out data in a given shape
Get g Reads a resource or its data
Hide h Makes a resource not shown
Join j Combines resources into one
Lock lk Secures a resource against changes by others
Move m Takes a resource from one place to another
New n Makes a resource that did not exist
Open op Starts access to a resource
Optimize om Makes a resource work better or faster
Pop pop Takes the item on top of a stack off it
Push pu Puts an item on top of a stack
Redo re Applies again an action that was undone
Remove r Deletes a resource from a container
Rename rn Gives a resource another name
Reset rs Puts a resource back to how it started
Resize rz Changes the size of a resource
Search sr Looks for resources that match a description
Select sc Picks some resources or parts of them
Set s Changes a resource's data, making it when missing
Show sh Makes a resource visible
Skip sk Passes over resources in a sequence
Split sl Cuts a resource into parts
Step st Moves to the next item of a sequence
Switch sw Alternates between resources or states
Undo un Takes a resource back to the state before an action
Unlock uk Frees a resource that was locked
Watch wc Keeps looking at a resource for changes
""",
    )
    + _group(
        "Communications",
        """
Connect cc Links a source to a destination
Disconnect dc Breaks the link between a source and a destination
Read rd Takes information in from a source
Receive rc Accepts information sent from a source
Send sd Delivers information to a destination
Write wr Puts information out to a destination
""",
    )
    + _group(
        "Data",
        """
Backup ba Keeps a copy of data to restore later
Checkpoint ch Records the state of data at a moment
Compare cr Tells how two resources differ
Compress cm Makes data take less room
Convert cv Changes data from one form to another, both ways
ConvertFrom cf Reads data from a form into another
ConvertTo ct Writes data from one form into another
Dismount dm Detaches a named entity from a place
Edit ed Changes data by adding, removing or replacing parts of it
Expand en Restores compressed data to its full size
Export ep Takes data out to a file or format others read
Group gp Arranges resources in groups by a property
Import ip Brings data in from a file or format others write
Initialize in Prepares a resource for use
Limit l Restricts the use of a resource
Merge mg Combines several resources' data into one
Mount mt Attaches a named entity to a place
Out o Sends data out of the environment
Publish pb Makes a resource available to others
Restore rr Puts a resource back to a saved state
Save sv Keeps data so that it is not lost
Sync sy Makes two resources agree
Unpublish ub Makes a resource unavailable to others
Update ud Brings a resource up to date
""",
    )
    + _group(
        "Diagnostic",
        """
Debug db Examines a resource to find and fix problems
Measure ms Counts or computes figures of a resource
Ping pi Checks that a resource answers (Test is preferred)
Repair rp Puts a damaged resource back in order
Resolve rv Maps a shorthand name to the resource it stands for
Test t Checks a resource's state or behaviour
Trace tr Follows the activity of a resource
""",
    )
    + _group(
        "Lifecycle",
        """
Approve ap Accepts a resource or process
Assert as States that a resource is in a given state
Build bd Makes an artifact from input files
Complete cmp Finishes an operation
Confirm cn Checks and acknowledges a resource or process
Deny dn Refuses a resource or process
Deploy dp Sends an application or solution to where it runs
Disable d Turns a resource off
Enable e Turns a resource on
Install is Puts a resource in place and prepares it
Invoke i Runs an action or a command
Register rg Records a resource in a repository
Request rq Asks for a resource or for a permission
Restart rt Stops an operation and starts it again
Resume ru Goes on with an operation that was suspended
Start sa Begins an operation
Stop sp Ends an operation
Submit sb Hands a resource over for approval
Suspend ss Pauses an operation
Uninstall us Takes a resource out of where it was installed
Unregister ur Removes a resource's record from a repository
Wait w Pauses until an event happens
""",
    )
    + _group(
        "Other",
        """
Use u Uses or includes a resource to do something
""",
    )
    + _group(
        "Security",
        """
Block bl Keeps others from using a resource
Grant gr Lets others use a resource
Protect pt Guards a resource against attack or loss
Revoke rk Takes away access to a resource
Unblock ul Lets others use a resource that was blocked
Unprotect up Removes guards that were put on a resource
""",
    )
)
